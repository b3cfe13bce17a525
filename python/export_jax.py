"""Export a JAX function as a jaxpr text file for `#[jax::jit(import = ...)]`.

The Rust macro `#[jax::jit(import = "models/mlp.jaxpr")]` reads, at build
time, the text `jax.make_jaxpr` prints and turns it into a Rust function.
This module writes that text and the tensors that go with it. It has no
command line; import it with

    import sys; sys.path.insert(0, "python")   # from the repository root
    import export_jax
    decl = export_jax.export(predict, (params, x), "models/mlp")
    print(decl)

Files written by ``export(fn, args, stem, params_arg=0)``:

``{stem}.jaxpr``
    ``str(jax.make_jaxpr(fn)(*args))`` followed by exactly one newline (the
    printed text never ends in one itself; the Rust parser accepts trailing
    whitespace). Strip that one newline to compare with ``str(closed)``.
``{stem}.consts.safetensors``
    Only when the closed jaxpr has constants (arrays ``fn`` closes over):
    ``closed.consts`` as tensors named ``"0"``, ``"1"``, ... in the order of
    the jaxpr's constvars (the variables before ``;``, as ``a`` in
    ``{ lambda a:f32[3]; b:f32[3]. let ...``), each ``np.asarray`` of the
    constant in its own dtype (the constvar's). When there are no
    constants, a stale file of that name is removed.
``{stem}.safetensors``
    Only when ``params_arg`` is not None: every leaf of ``args[params_arg]``
    under the name ``jax.tree_util.keystr(path, simple=True, separator=".")``
    gives it (``w1``, ``layers.0.w``), as tests/fixtures/gen/safetensors_fixture.py
    does and as the Rust crate's ``tree::load_safetensors`` reads them; a
    ``params`` that is a single array is stored as ``array``, the name the
    Rust side gives a lone leaf. (With ``params_arg=None`` nothing is
    written or removed under this name.)

Leaf order contract
-------------------
The jaxpr's inputs (the variables after ``;``) are the flattened leaves of
all of ``args``, in order: ``jax.tree_util.tree_leaves(args)``. JAX flattens
a dict in sorted key order, a list or tuple by index, a dataclass or
namedtuple in field order, and drops ``None``. Its outputs are the leaves of
``fn(*args)`` in the same order. The Rust function's parameters flatten the
same way: argument by argument, a struct's fields in declaration order, a
Rust array or tuple by index. So a ``#[derive(jax::Pytree)]`` struct whose
fields are declared in JAX's order (a dict's keys sorted) receives the
jaxpr's inputs in the right order; the declaration ``export`` returns is
written that way.

The returned declaration is a suggestion: a ``#[derive(jax::Pytree, Clone, Default)]``
struct for every dict, dataclass or namedtuple (fields in flatten order,
named by their keys, made valid Rust identifiers; a renamed field carries a
comment, because its safetensors name stays JAX's), a Rust array ``[T; n]``
for a list whose items have one type, a tuple otherwise (a Python tuple is
always a Rust tuple), ``Array<E, d0, d1, ..>`` for an array (``Array<E>``
when 0-d), a bare ``f32``/``i32``/... for a weakly typed 0-d value (a Python
scalar argument or result; not as a struct field), and ``jax::random::Key``
for a single typed PRNG key; then the
``#[jax::jit(import = "...")] fn name(...) -> ...;`` line with argument and
result types from the closed jaxpr's in and out avals (arrays and structs
by reference, scalars and keys by value). Where no Rust type fits (a custom
pytree node, a dtype without a Rust element type), the text returned is a
``// no Rust declaration suggested: ...`` comment; the files are written
all the same.

Refused with a ``ValueError`` (the safetensors files cannot carry them):
key arrays, complex numbers and dtypes without a Rust element type in the
parameters or the constants, and parameter leaves that are not arrays
(Python scalars, strings, ...). Nothing is written when ``export`` refuses.
"""
import inspect
import keyword
import os
import re

import jax
import numpy as np

__all__ = ["export", "param_tensors", "rust_element", "RUST_ELEMENTS"]

#: numpy/JAX dtype name -> Rust element type of `jax::Array`.
RUST_ELEMENTS = {
    "bool": "bool",
    "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64",
    "uint8": "u8", "uint16": "u16", "uint32": "u32", "uint64": "u64",
    "float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
    "complex64": "Complex<f32>", "complex128": "Complex<f64>",
}
# Element types the Rust safetensors reader stores (no complex).
_SAFETENSORS_DTYPES = set(RUST_ELEMENTS) - {"complex64", "complex128"}

# Words Rust reserves (strict and reserved keywords); a field named so gets
# a trailing underscore.
_RUST_KEYWORDS = set("""
    as async await break const continue crate dyn else enum extern false fn for
    gen if impl in let loop match mod move mut pub ref return self Self static
    struct super trait true type unsafe use where while abstract become box do
    final macro override priv try typeof unsized virtual yield
""".split())


def rust_element(dtype):
    """The Rust element type of a numpy/JAX dtype (`float32` -> `f32`)."""
    name = str(np.dtype(dtype))
    if name not in RUST_ELEMENTS:
        raise ValueError(f"dtype {name} has no Rust element type")
    return RUST_ELEMENTS[name]


def _is_key(x):
    dtype = getattr(x, "dtype", None)
    return dtype is not None and jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key)


def _tensor(value, what, dtype=None):
    """`value` as a C-contiguous numpy array safetensors can store, or a
    ValueError naming `what`."""
    if _is_key(value):
        raise ValueError(
            f"{what} is a PRNG key array ({value.dtype}{list(value.shape)}); safetensors cannot "
            "store typed keys: pass the key as an argument of its own, not inside the parameters "
            "or closed over")
    a = np.asarray(value)
    if dtype is not None and a.dtype != dtype:
        b = a.astype(dtype)
        if not np.array_equal(b.astype(a.dtype), a, equal_nan=True):
            raise ValueError(f"{what}: {a.dtype} value does not convert exactly to {dtype}")
        a = b
    if str(a.dtype) not in _SAFETENSORS_DTYPES:
        raise ValueError(f"{what} has dtype {a.dtype}, which the safetensors files of the Rust "
                         "crate cannot carry")
    return np.ascontiguousarray(a)


def param_tensors(params):
    """{name: numpy array} of every leaf of `params`, named as
    `jax.tree_util.keystr(path, simple=True, separator=".")` names it (a
    lone array: "array"). ValueError for a key array, a non-array leaf, a
    complex leaf, or two leaves with one name."""
    out = {}
    for path, leaf in jax.tree_util.tree_flatten_with_path(params)[0]:
        name = jax.tree_util.keystr(path, simple=True, separator=".") or "array"
        if not isinstance(leaf, (jax.Array, np.ndarray, np.generic)):
            raise ValueError(f"parameter {name!r} is a {type(leaf).__name__}, not an array; "
                             "convert it with jnp.asarray (or pass it as a separate argument)")
        if name in out:
            raise ValueError(f"two parameter leaves are both named {name!r}")
        out[name] = _tensor(leaf, f"parameter {name!r}")
    return out


def _const_tensors(closed):
    out = {}
    for i, (var, c) in enumerate(zip(closed.jaxpr.constvars, closed.consts)):
        out[str(i)] = _tensor(c, f"constant {i} ({var.aval.str_short()})",
                              dtype=None if _is_key(c) else var.aval.dtype)
    return out


# ---------------------------------------------------------------------------
# The suggested Rust declaration
# ---------------------------------------------------------------------------
def _identifier(key):
    """A valid Rust identifier for a field or argument named `key`."""
    s = re.sub(r"\W", "_", str(key), flags=re.ASCII)
    if not s or s[0].isdigit():
        s = "f_" + s
    if s in _RUST_KEYWORDS or s == "_" or keyword.iskeyword(s):
        s += "_"
    return s


def _camel(name):
    parts = [p for p in re.split(r"[^0-9A-Za-z]+", str(name)) if p]
    s = "".join(p[:1].upper() + p[1:] for p in parts) or "Struct"
    return "S" + s if s[0].isdigit() else s


def _singular(name):
    return name[:-1] if len(name) > 1 and name.endswith("s") and not name.endswith("ss") else name


class _Decl:
    """Builds Rust types for pytrees, consuming the jaxpr's avals in order."""

    def __init__(self):
        self.structs = {}  # name -> rendered struct text (in creation order)
        self._shapes = {}  # name -> fields, to reuse identical structs

    def leaf(self, aval, bare_scalar):
        if jax.dtypes.issubdtype(aval.dtype, jax.dtypes.prng_key):
            if aval.shape == ():
                return "jax::random::Key", True
            return f"/* unsupported: {aval.str_short()} */ ()", True
        elem = rust_element(aval.dtype)
        if aval.shape == () and aval.weak_type and bare_scalar:
            return elem, True  # a Python scalar: `f32`, by value
        dims = "".join(f", {d}" for d in aval.shape)
        return f"Array<{elem}{dims}>", False

    def struct(self, name, fields):
        """Registers `struct name { fields }` (fields: [(ident, type, key)]),
        reusing an identical one; returns its (possibly suffixed) name."""
        shape = [(f, t) for f, t, _ in fields]
        base, n = name, 1
        while name in self._shapes and self._shapes[name] != shape:
            n += 1
            name = f"{base}{n}"
        if name not in self._shapes:
            self._shapes[name] = shape
            lines = ["#[derive(jax::Pytree, Clone, Default)]", f"pub struct {name} {{"]
            for ident, ty, key in fields:
                note = f"  // JAX key {key!r} (its safetensors name)" if ident != str(key) else ""
                lines.append(f"    pub {ident}: {ty},{note}")
            lines.append("}")
            self.structs[name] = "\n".join(lines)
        return name

    def tree(self, x, avals, hint, bare_scalar=True):
        """(Rust type, passed by value) of pytree `x`; a weakly typed 0-d
        leaf is a bare scalar (`f32`) unless it is a struct field."""
        tu = jax.tree_util
        if x is None:
            return "()", True
        if tu.treedef_is_leaf(tu.tree_structure(x)):
            return self.leaf(next(avals), bare_scalar)
        children = tu.tree_flatten_with_path(x, is_leaf=lambda y: y is not x)[0]
        keys = [p[0] for p, _ in children]
        if keys and all(isinstance(k, tu.SequenceKey) for k in keys):
            item_hint = _singular(hint)
            types = [self.tree(c, avals, item_hint, bare_scalar)[0] for _, c in children]
            if isinstance(x, list) and len(set(types)) == 1:
                return f"[{types[0]}; {len(types)}]", False
            return "(" + ", ".join(types) + ("," if len(types) == 1 else "") + ")", False
        if not keys and isinstance(x, (list, tuple)):
            return "()", True
        if all(isinstance(k, (tu.DictKey, tu.GetAttrKey)) for k in keys):
            names = [k.key if isinstance(k, tu.DictKey) else k.name for k in keys]
            fields, used = [], set()
            for key, (_, child) in zip(names, children):
                ident = _identifier(key)
                while ident in used:
                    ident += "_"
                used.add(ident)
                fields.append((ident, self.tree(child, avals, str(key), False)[0], key))
            name = _camel(hint) if isinstance(x, dict) else _camel(type(x).__name__)
            return self.struct(name, fields), False
        raise ValueError(f"cannot write a Rust type for a {type(x).__name__} node "
                         f"(keys {keys[:3]}...)")


def _arg_names(fn, n):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        p = params[i] if i < len(params) else None
        if p is None or p.kind not in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(f"a{i}")
        else:
            names.append(_identifier(p.name))
    return names


def _declaration(fn, args, closed, out_shape, params_arg, name, import_path):
    decl = _Decl()
    avals = iter(closed.in_avals)
    arg_names = _arg_names(fn, len(args))
    params, inputs = [], []
    # The constants are the Rust function's leading parameters (the
    # tensors "0", "1", .. of {stem}.consts.safetensors).
    for k, v in enumerate(closed.jaxpr.constvars):
        ty, _ = decl.tree(np.zeros(v.aval.shape, v.aval.dtype), iter([v.aval]), f"const{k}")
        params.append(f"const{k}: &{ty}")
        inputs.append(f"consts.{k}")
    for i, (a, arg_name) in enumerate(zip(args, arg_names)):
        hint = "Params" if i == params_arg and isinstance(a, dict) else arg_name
        ty, by_value = decl.tree(a, avals, hint)
        params.append(f"{arg_name}: {ty if by_value else '&' + ty}")
        for path, _ in jax.tree_util.tree_flatten_with_path(a)[0]:
            sub = jax.tree_util.keystr(path, simple=True, separator=".")
            inputs.append(f"{arg_name}.{sub}" if sub else arg_name)
    assert next(avals, None) is None, "the jaxpr has more inputs than the arguments have leaves"
    out_avals = iter(closed.out_avals)
    ret, _ = decl.tree(out_shape, out_avals, "Output")
    assert next(out_avals, None) is None, "the jaxpr has more outputs than the result has leaves"
    structs = "".join(s + "\n\n" for s in decl.structs.values())
    return structs + "\n".join([
        f"// jaxpr inputs in order: {', '.join(inputs) or '(none)'}",
        f'#[jax::jit(import = "{import_path}")]',
        f"fn {_identifier(name)}({', '.join(params)}) -> {ret};",
    ]) + "\n"


def export(fn, args, stem, params_arg=0, *, name=None, import_path=None):
    """Traces `fn(*args)` with `jax.make_jaxpr` and writes `{stem}.jaxpr`,
    `{stem}.consts.safetensors` (only with constants; a stale one is
    removed) and, unless `params_arg` is None, `{stem}.safetensors` with the
    leaves of `args[params_arg]` (see the module docstring for the formats
    and the leaf order). Returns the suggested Rust declaration (struct(s)
    and the `#[jax::jit(import = ...)] fn ...;` line) as text; `name` is the
    Rust function's name (default `fn.__name__`), `import_path` the path in
    the attribute (default `{stem}.jaxpr` exactly as given; the macro
    resolves it relative to the Rust source file holding the attribute, as
    `include_str!` does). Raises ValueError, before writing anything,
    for what the files cannot carry."""
    args = tuple(args)
    if params_arg is not None and not 0 <= params_arg < len(args):
        raise ValueError(f"params_arg={params_arg} but there are {len(args)} arguments")
    closed, out_shape = jax.make_jaxpr(fn, return_shape=True)(*args)
    n_leaves = len(jax.tree_util.tree_leaves(args))
    if n_leaves != len(closed.in_avals):
        raise ValueError(f"the arguments have {n_leaves} leaves but the jaxpr {len(closed.in_avals)} inputs")
    params = param_tensors(args[params_arg]) if params_arg is not None else None
    consts = _const_tensors(closed)
    if name is None:
        name = getattr(fn, "__name__", "f")
        name = "f" if name == "<lambda>" else name
    try:
        decl = _declaration(fn, args, closed, out_shape, params_arg, name,
                            import_path if import_path is not None else f"{stem}.jaxpr")
    except ValueError as e:
        decl = f"// no Rust declaration suggested: {e}\n"

    from safetensors.numpy import save_file

    directory = os.path.dirname(stem)
    if directory:
        os.makedirs(directory, exist_ok=True)
    with open(f"{stem}.jaxpr", "w", encoding="utf-8", newline="\n") as f:
        f.write(str(closed) + "\n")
    consts_path = f"{stem}.consts.safetensors"
    if consts:
        save_file(consts, consts_path)
    elif os.path.exists(consts_path):
        os.remove(consts_path)
    if params is not None:
        save_file(params, f"{stem}.safetensors")
    return decl
