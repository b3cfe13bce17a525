fn main() {
    let src = "fn noisy_16m(x: &Array<f32, M16>, k: jax::random::Key) -> Array<f32, M16> { x + jax::random::normal::<Array<f32, M16>>(k) * 0.1 }";
    let item: proc_macro2::TokenStream = src.parse().unwrap();
    println!("{}", jax_compiler::expand_jit(proc_macro2::TokenStream::new(), item));
}
