//! Errors at a span of the user's source.

/// An error at a span: with the `syn` feature, the `crate::Error` the macro
/// reports at the user's tokens.
#[cfg(feature = "syn")]
pub type Error = syn::Error;

/// An error at a span: its message, and where the user wrote what caused it.
#[cfg(not(feature = "syn"))]
#[derive(Clone, Debug)]
pub struct Error {
    span: proc_macro2::Span,
    message: String,
}

#[cfg(not(feature = "syn"))]
impl Error {
    /// An error at `span` (the same constructor as `crate::Error::new`).
    pub fn new(span: proc_macro2::Span, message: impl std::fmt::Display) -> Error {
        Error {
            span,
            message: message.to_string(),
        }
    }

    /// Where the error is.
    pub fn span(&self) -> proc_macro2::Span {
        self.span
    }
}

#[cfg(not(feature = "syn"))]
impl std::fmt::Display for Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

#[cfg(not(feature = "syn"))]
impl std::error::Error for Error {}

/// A result whose error is at a span.
pub type Result<T> = std::result::Result<T, Error>;
