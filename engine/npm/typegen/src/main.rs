//! Writes TypeScript declarations for the engine's result and option types, read from the
//! engine's Rust source with `syn` and following serde's attributes (`rename_all`, `rename`,
//! `tag`, `content`, `untagged`, `skip*`, `flatten`, `default`, `transparent`, `into`).
//!
//! Usage: `fleet-policy-typegen SRC_DIR ROOT...` where a root is `TypeName` (a result: serde's
//! serialised shape) or `TypeName:in` (an input: what deserialisation accepts). The
//! declarations go to stdout; every place typed loosely (`unknown`) is listed on stderr and in a
//! comment at the top, so nothing is loose silently.
//!
//! A type whose `Serialize` is written by hand names what it writes with a same-named serde
//! definition (a derived struct or a type alias, e.g. in a private `json` module beside it):
//! only serde definitions are read, so the two do not clash.
//!
//! Why from the source and not derives: three engines change their types in parallel; reading
//! the source needs no edits in their files and cannot fall out of date, because the package
//! build runs it every time. The npm tests check the output against real results with `tsc`.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use quote::ToTokens;
use syn::{Attribute, Fields, GenericArgument, Item, PathArguments, Type};

/// Direction of a type: what serde writes (results) or what it reads (options).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
enum Mode {
    Out,
    In,
}

/// One struct, enum or alias found in the source.
struct Def {
    /// Module path from the crate root, e.g. `["placement", "report"]`.
    module: Vec<String>,
    item: Item,
}

#[derive(Default, Clone)]
struct SerdeAttrs {
    rename: Option<String>,
    rename_all: Option<String>,
    /// `rename_all_fields` (enums: the fields of every struct variant).
    rename_all_fields: Option<String>,
    tag: Option<String>,
    content: Option<String>,
    untagged: bool,
    transparent: bool,
    skip_ser: bool,
    skip_de: bool,
    skip_if: bool,
    /// `skip_serializing_if = "Option::is_none"`: when present, the value is never null.
    skip_if_none: bool,
    flatten: bool,
    default: bool,
    with: bool,
    /// `deserialize_with` on an input (the function's path): it accepts at least the declared
    /// type.
    custom_de: Option<String>,
    into: Option<String>,
}

/// Custom deserializers that also accept another type than the field's: the TypeScript type
/// added to the declared one.
const WIDER: &[(&str, &str)] = &[("string_or_list", "string")];

fn serde_attrs(attrs: &[Attribute], mode: Mode) -> SerdeAttrs {
    let mut out = SerdeAttrs::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("serde")) {
        let _ = attr.parse_nested_meta(|meta| {
            let key = meta
                .path
                .get_ident()
                .map(|i| i.to_string())
                .unwrap_or_default();
            // `key = "v"`, or `key(serialize = "v", deserialize = "w")`.
            let mut value: Option<String> = None;
            if meta.input.peek(syn::Token![=]) {
                let s: syn::LitStr = meta.value()?.parse()?;
                value = Some(s.value());
            } else if meta.input.peek(syn::token::Paren) {
                meta.parse_nested_meta(|inner| {
                    let which = inner
                        .path
                        .get_ident()
                        .map(|i| i.to_string())
                        .unwrap_or_default();
                    let s: syn::LitStr = inner.value()?.parse()?;
                    let wanted = if mode == Mode::Out {
                        "serialize"
                    } else {
                        "deserialize"
                    };
                    if which == wanted {
                        value = Some(s.value());
                    }
                    Ok(())
                })?;
            }
            match key.as_str() {
                "rename" => out.rename = value,
                "rename_all" => out.rename_all = value,
                "rename_all_fields" => out.rename_all_fields = value,
                "tag" => out.tag = value,
                "content" => out.content = value,
                "untagged" => out.untagged = true,
                "transparent" => out.transparent = true,
                "skip" => {
                    out.skip_ser = true;
                    out.skip_de = true
                }
                "skip_serializing" => out.skip_ser = true,
                "skip_deserializing" => out.skip_de = true,
                "skip_serializing_if" => {
                    out.skip_if = true;
                    out.skip_if_none = value.as_deref() == Some("Option::is_none");
                }
                "flatten" => out.flatten = true,
                "default" => out.default = true,
                "deserialize_with" if mode == Mode::In => out.custom_de = value,
                "with" | "serialize_with" | "deserialize_with" | "getter" | "remote" => {
                    let relevant = match key.as_str() {
                        "serialize_with" => mode == Mode::Out,
                        "deserialize_with" => mode == Mode::In,
                        _ => true,
                    };
                    if relevant {
                        out.with = true
                    }
                }
                "into" if mode == Mode::Out => out.into = value,
                "from" | "try_from" if mode == Mode::In => out.into = value,
                _ => {}
            }
            Ok(())
        });
    }
    out
}

fn derives(attrs: &[Attribute]) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(last) = meta.path.segments.last() {
                out.insert(last.ident.to_string());
            }
            Ok(())
        });
    }
    out
}

fn is_cfg_test(attrs: &[Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("cfg") && a.meta.to_token_stream().to_string().contains("test"))
}

fn docs(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            syn::Meta::NameValue(nv) => match &nv.value {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) => Some(s.value().trim().replace("*/", "* /")),
                _ => None,
            },
            _ => None,
        })
        .collect()
}

/// serde's renaming rules (serde_derive/src/internals/case.rs).
fn rename_variant(name: &str, rule: Option<&str>) -> String {
    match rule {
        Some("lowercase") => name.to_ascii_lowercase(),
        Some("UPPERCASE") => name.to_ascii_uppercase(),
        Some("camelCase") => {
            let mut c = name.chars();
            match c.next() {
                Some(f) => f.to_ascii_lowercase().to_string() + c.as_str(),
                None => String::new(),
            }
        }
        Some("snake_case") => {
            let mut s = String::new();
            for (i, ch) in name.char_indices() {
                if i > 0 && ch.is_uppercase() {
                    s.push('_');
                }
                s.push(ch.to_ascii_lowercase());
            }
            s
        }
        Some("SCREAMING_SNAKE_CASE") => {
            rename_variant(name, Some("snake_case")).to_ascii_uppercase()
        }
        Some("kebab-case") => rename_variant(name, Some("snake_case")).replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => {
            rename_variant(name, Some("SCREAMING_SNAKE_CASE")).replace('_', "-")
        }
        _ => name.to_string(),
    }
}

fn rename_field(name: &str, rule: Option<&str>) -> String {
    match rule {
        Some("UPPERCASE") | Some("SCREAMING_SNAKE_CASE") => name.to_ascii_uppercase(),
        Some("PascalCase") => name
            .split('_')
            .map(|p| {
                let mut c = p.chars();
                match c.next() {
                    Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                    None => String::new(),
                }
            })
            .collect(),
        Some("camelCase") => {
            let pascal = rename_field(name, Some("PascalCase"));
            rename_variant(&pascal, Some("camelCase"))
        }
        Some("kebab-case") => name.replace('_', "-"),
        Some("SCREAMING-KEBAB-CASE") => name.to_ascii_uppercase().replace('_', "-"),
        _ => name.to_string(),
    }
}

fn ident_name(i: &syn::Ident) -> String {
    i.to_string().trim_start_matches("r#").to_string()
}

fn ts_key(name: &str) -> String {
    let plain = name.chars().enumerate().all(|(i, c)| {
        c == '_' || c == '$' || c.is_ascii_alphabetic() || (i > 0 && c.is_ascii_digit())
    });
    if plain && !name.is_empty() {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

struct Gen {
    defs: Vec<Def>,
    /// Requested (definition index, mode) pairs not yet written.
    queue: VecDeque<(usize, Mode)>,
    done: BTreeSet<(usize, Mode)>,
    /// TypeScript name of each (definition, mode).
    names: BTreeMap<(usize, Mode), String>,
    loose: BTreeSet<String>,
    notes: BTreeSet<String>,
    /// The struct being written has `#[serde(default)]`: every field may be left out.
    container_default: bool,
    out: String,
}

impl Gen {
    fn load(dir: &Path, module: Vec<String>, defs: &mut Vec<Def>) -> Result<(), String> {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .collect();
        entries.sort();
        for path in entries {
            let stem = path
                .file_stem()
                .and_then(|s| s.to_str())
                .unwrap_or("")
                .to_string();
            if path.is_dir() {
                if stem == "bin" {
                    continue;
                }
                let mut m = module.clone();
                m.push(stem);
                Self::load(&path, m, defs)?;
            } else if path.extension().and_then(|e| e.to_str()) == Some("rs") {
                let text = std::fs::read_to_string(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                let file =
                    syn::parse_file(&text).map_err(|e| format!("{}: {e}", path.display()))?;
                let mut m = module.clone();
                if stem != "mod" && stem != "lib" {
                    m.push(stem);
                }
                Self::items(file.items, m, defs);
            }
        }
        Ok(())
    }

    fn items(items: Vec<Item>, module: Vec<String>, defs: &mut Vec<Def>) {
        for item in items {
            match item {
                Item::Struct(ref s) if !is_cfg_test(&s.attrs) => defs.push(Def {
                    module: module.clone(),
                    item,
                }),
                Item::Enum(ref e) if !is_cfg_test(&e.attrs) => defs.push(Def {
                    module: module.clone(),
                    item,
                }),
                Item::Type(ref t) if !is_cfg_test(&t.attrs) => defs.push(Def {
                    module: module.clone(),
                    item,
                }),
                Item::Mod(m) if !is_cfg_test(&m.attrs) => {
                    if let Some((_, inner)) = m.content {
                        let mut sub = module.clone();
                        sub.push(m.ident.to_string());
                        Self::items(inner, sub, defs);
                    }
                }
                _ => {}
            }
        }
    }

    fn def_ident(&self, i: usize) -> String {
        match &self.defs[i].item {
            Item::Struct(s) => s.ident.to_string(),
            Item::Enum(e) => e.ident.to_string(),
            Item::Type(t) => t.ident.to_string(),
            _ => String::new(),
        }
    }

    fn def_attrs(&self, i: usize) -> &[Attribute] {
        match &self.defs[i].item {
            Item::Struct(s) => &s.attrs,
            Item::Enum(e) => &e.attrs,
            Item::Type(t) => &t.attrs,
            _ => &[],
        }
    }

    /// Whether serde reads or writes definition `i` in direction `mode`: a type alias, or a
    /// type deriving `Serialize` (results) or `Deserialize` (inputs).
    fn serde_def(&self, i: usize, mode: Mode) -> bool {
        let wanted = if mode == Mode::Out {
            "Serialize"
        } else {
            "Deserialize"
        };
        matches!(self.defs[i].item, Item::Type(_)) || derives(self.def_attrs(i)).contains(wanted)
    }

    /// Finds the definition a path names, seen from `from` (a definition's module).
    fn resolve(&self, path: &syn::Path, from: &[String], mode: Mode) -> Option<usize> {
        let ident = path.segments.last()?.ident.to_string();
        let prefix: Vec<String> = path
            .segments
            .iter()
            .take(path.segments.len().saturating_sub(1))
            .map(|s| s.ident.to_string())
            .filter(|s| s != "crate" && s != "super" && s != "self")
            .collect();
        let candidates: Vec<usize> = (0..self.defs.len())
            .filter(|&i| self.def_ident(i) == ident)
            .filter(|&i| self.serde_def(i, mode))
            .filter(|&i| {
                let m = &self.defs[i].module;
                prefix.is_empty()
                    || m.ends_with(&prefix)
                    || m.iter().any(|s| prefix.last() == Some(s))
            })
            .collect();
        // Prefer the same module, then the same top-level module, then any.
        candidates
            .iter()
            .copied()
            .find(|&i| self.defs[i].module == from)
            .or_else(|| {
                candidates
                    .iter()
                    .copied()
                    .find(|&i| self.defs[i].module.first() == from.first())
            })
            .or_else(|| candidates.first().copied())
    }

    fn name_of(&mut self, i: usize, mode: Mode) -> String {
        if let Some(n) = self.names.get(&(i, mode)) {
            return n.clone();
        }
        let ident = self.def_ident(i);
        // Only types serde knows clash: a hand-serialised type (no derive) may name its
        // serialised shape with a same-named derived struct.
        let clash = (0..self.defs.len()).any(|j| {
            j != i
                && self.def_ident(j) == ident
                && (self.serde_def(j, Mode::Out) || self.serde_def(j, Mode::In))
        });
        let mut name = if clash {
            let top = self.defs[i].module.first().cloned().unwrap_or_default();
            rename_field(&top, Some("PascalCase")) + &ident
        } else {
            ident
        };
        if mode == Mode::In
            && self
                .done
                .iter()
                .chain(self.queue.iter())
                .any(|&(j, m)| j == i && m == Mode::Out)
        {
            name.push_str("Input");
        }
        self.names.insert((i, mode), name.clone());
        if !self.done.contains(&(i, mode)) && !self.queue.contains(&(i, mode)) {
            self.queue.push_back((i, mode));
        }
        name
    }

    fn loose(&mut self, what: String) -> String {
        self.loose.insert(what);
        "unknown".to_string()
    }

    fn ty(
        &mut self,
        ty: &Type,
        from: &[String],
        generics: &[String],
        mode: Mode,
        ctx: &str,
    ) -> String {
        match ty {
            Type::Reference(r) => self.ty(&r.elem, from, generics, mode, ctx),
            Type::Paren(p) => self.ty(&p.elem, from, generics, mode, ctx),
            Type::Group(g) => self.ty(&g.elem, from, generics, mode, ctx),
            Type::Slice(s) => format!("{}[]", self.wrap(&s.elem, from, generics, mode, ctx)),
            Type::Array(a) => format!("{}[]", self.wrap(&a.elem, from, generics, mode, ctx)),
            Type::Tuple(t) if t.elems.is_empty() => "null".into(),
            Type::Tuple(t) => {
                let parts: Vec<String> = t
                    .elems
                    .iter()
                    .map(|e| self.ty(e, from, generics, mode, ctx))
                    .collect();
                format!("[{}]", parts.join(", "))
            }
            Type::Path(p) => self.path_ty(&p.path, from, generics, mode, ctx),
            other => self.loose(format!("{ctx}: {}", other.to_token_stream())),
        }
    }

    fn wrap(
        &mut self,
        ty: &Type,
        from: &[String],
        generics: &[String],
        mode: Mode,
        ctx: &str,
    ) -> String {
        let t = self.ty(ty, from, generics, mode, ctx);
        if t.contains(' ') {
            format!("({t})")
        } else {
            t
        }
    }

    fn args(&self, seg: &syn::PathSegment) -> Vec<Type> {
        match &seg.arguments {
            PathArguments::AngleBracketed(a) => a
                .args
                .iter()
                .filter_map(|g| match g {
                    GenericArgument::Type(t) => Some(t.clone()),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        }
    }

    fn path_ty(
        &mut self,
        path: &syn::Path,
        from: &[String],
        generics: &[String],
        mode: Mode,
        ctx: &str,
    ) -> String {
        let Some(seg) = path.segments.last() else {
            return self.loose(format!("{ctx}: empty path"));
        };
        let ident = seg.ident.to_string();
        let args = self.args(seg);
        let full = path.to_token_stream().to_string().replace(' ', "");
        if generics.contains(&ident) && path.segments.len() == 1 {
            return ident;
        }
        let first = |g: &mut Gen, a: &[Type]| match a.first() {
            Some(t) => g.ty(t, from, generics, mode, ctx),
            None => g.loose(format!("{ctx}: {full}")),
        };
        match ident.as_str() {
            "String" | "str" | "char" | "PathBuf" => "string".into(),
            "bool" => "boolean".into(),
            "i8" | "i16" | "i32" | "i64" | "i128" | "isize" | "u8" | "u16" | "u32" | "u64"
            | "u128" | "usize" | "f32" | "f64" | "NonZeroU32" | "NonZeroUsize" | "NonZeroU64" => {
                "number".into()
            }
            "DateTime" | "NaiveDateTime" | "NaiveDate" | "NaiveTime" => "string".into(),
            "Value" if full.contains("serde_json") || self.resolve(path, from, mode).is_none() => {
                self.loose
                    .insert(format!("{ctx}: serde_json::Value (any JSON)"));
                "JsonValue".into()
            }
            "Map" if full.contains("serde_json") => "{ [key: string]: JsonValue }".into(),
            "Option" => {
                let inner = first(self, &args);
                format!("{inner} | null")
            }
            "Vec" | "VecDeque" | "BTreeSet" | "SortedSet" | "HashSet" | "IndexSet" | "SmallVec" => {
                let inner = match args.first() {
                    Some(t) => self.wrap(t, from, generics, mode, ctx),
                    None => self.loose(format!("{ctx}: {full}")),
                };
                format!("{inner}[]")
            }
            "Box" | "Rc" | "Arc" | "Cow" => {
                if ident == "Cow" && args.is_empty() {
                    return "string".into();
                }
                first(self, &args)
            }
            "BTreeMap" | "HashMap" | "IndexMap" | "SortedMap" => {
                let v = match args.get(1) {
                    Some(t) => self.ty(t, from, generics, mode, ctx),
                    None => self.loose(format!("{ctx}: {full}")),
                };
                format!("{{ [key: string]: {v} }}")
            }
            _ => match self.resolve(path, from, mode) {
                Some(i) => {
                    let name = self.name_of(i, mode);
                    if args.is_empty() {
                        name
                    } else {
                        let a: Vec<String> = args
                            .iter()
                            .map(|t| self.ty(t, from, generics, mode, ctx))
                            .collect();
                        format!("{name}<{}>", a.join(", "))
                    }
                }
                None => self.loose(format!("{ctx}: {full} (no serde definition found)")),
            },
        }
    }

    fn doc_block(out: &mut String, docs: &[String], indent: &str) {
        let docs: Vec<&String> = docs.iter().filter(|d| !d.is_empty()).collect();
        if docs.is_empty() {
            return;
        }
        if docs.len() == 1 {
            let _ = writeln!(out, "{indent}/** {} */", docs[0]);
        } else {
            let _ = writeln!(out, "{indent}/**");
            for d in docs {
                let _ = writeln!(out, "{indent} * {d}");
            }
            let _ = writeln!(out, "{indent} */");
        }
    }

    /// The members of a braced struct (or struct variant): `(lines, flattened types)`.
    // The walker's context travels as arguments, as in `ty`; bundling them would only rename them.
    #[allow(clippy::too_many_arguments)]
    fn fields(
        &mut self,
        fields: &syn::FieldsNamed,
        rule: Option<&str>,
        from: &[String],
        generics: &[String],
        mode: Mode,
        ctx: &str,
        indent: &str,
    ) -> (String, Vec<String>) {
        let mut body = String::new();
        let mut flat = Vec::new();
        for f in &fields.named {
            let Some(id) = &f.ident else { continue };
            let a = serde_attrs(&f.attrs, mode);
            if (mode == Mode::Out && a.skip_ser) || (mode == Mode::In && a.skip_de) {
                continue;
            }
            let rust = ident_name(id);
            let fctx = format!("{ctx}.{rust}");
            let mut t = if a.with {
                self.loose(format!("{fctx} (custom serde function)"))
            } else {
                self.ty(&f.ty, from, generics, mode, &fctx)
            };
            if mode == Mode::Out && a.skip_if_none {
                if let Some(inner) = t.strip_suffix(" | null") {
                    t = inner.to_string();
                }
            }
            if let Some(function) = &a.custom_de {
                match WIDER.iter().find(|(name, _)| name == function) {
                    Some((_, also)) => t = format!("{t} | {also}"),
                    None => {
                        self.notes.insert(format!(
                            "{fctx}: custom deserializer; declared as its Rust type, which it accepts"
                        ));
                    }
                }
            }
            if a.flatten {
                if mode == Mode::In && t.starts_with("{ [key: string]") {
                    // A catch-all map of other keys: declaring it would make every key any JSON.
                    self.notes
                        .insert(format!("{fctx}: other keys are accepted and not declared"));
                    let prefix = format!("{fctx}:");
                    self.loose.retain(|l| !l.starts_with(&prefix));
                } else {
                    flat.push(t);
                }
                continue;
            }
            let key = a
                .rename
                .clone()
                .unwrap_or_else(|| rename_field(&rust, rule));
            let is_option = matches!(&f.ty, Type::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "Option"));
            let optional = match mode {
                Mode::Out => a.skip_if,
                Mode::In => a.default || is_option || self.container_default,
            };
            Self::doc_block(&mut body, &docs(&f.attrs), indent);
            let _ = writeln!(
                body,
                "{indent}{}{}: {t};",
                ts_key(&key),
                if optional { "?" } else { "" }
            );
        }
        (body, flat)
    }

    fn write_def(&mut self, i: usize, mode: Mode) {
        let name = self.name_of(i, mode);
        let def_module = self.defs[i].module.clone();
        let item = self.defs[i].item.clone();
        let mut out = String::new();
        let wrap_generics = |g: &syn::Generics| -> Vec<String> {
            g.type_params().map(|p| p.ident.to_string()).collect()
        };
        // `<A, B>` after a declared name, or nothing.
        let type_params = |generics: &[String]| -> String {
            if generics.is_empty() {
                String::new()
            } else {
                format!("<{}>", generics.join(", "))
            }
        };
        match &item {
            Item::Type(t) => {
                let generics = wrap_generics(&t.generics);
                let gen = type_params(&generics);
                let body = self.ty(&t.ty, &def_module, &generics, mode, &name);
                Self::doc_block(&mut out, &docs(&t.attrs), "");
                let _ = writeln!(out, "export type {name}{gen} = {body};\n");
            }
            Item::Struct(s) => {
                let generics = wrap_generics(&s.generics);
                let gen = type_params(&generics);
                let a = serde_attrs(&s.attrs, mode);
                Self::doc_block(&mut out, &docs(&s.attrs), "");
                if let Some(into) = &a.into {
                    let path: syn::Path =
                        syn::parse_str(into).unwrap_or_else(|_| syn::parse_quote!(Unknown));
                    let body = self.path_ty(&path, &def_module, &generics, mode, &name);
                    let _ = writeln!(out, "export type {name}{gen} = {body};\n");
                } else {
                    match &s.fields {
                        Fields::Named(named) if !a.transparent => {
                            self.container_default = a.default;
                            let (body, flat) = self.fields(
                                named,
                                a.rename_all.as_deref(),
                                &def_module,
                                &generics,
                                mode,
                                &name,
                                "  ",
                            );
                            self.container_default = false;
                            if flat.is_empty() {
                                let _ =
                                    writeln!(out, "export interface {name}{gen} {{\n{body}}}\n");
                            } else {
                                let _ = writeln!(
                                    out,
                                    "export type {name}{gen} = {{\n{body}}} & {};\n",
                                    flat.join(" & ")
                                );
                            }
                        }
                        Fields::Named(named) => {
                            let t = named.named.first().map(|f| f.ty.clone());
                            let body = match t {
                                Some(t) => self.ty(&t, &def_module, &generics, mode, &name),
                                None => "null".into(),
                            };
                            let _ = writeln!(out, "export type {name}{gen} = {body};\n");
                        }
                        Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                            let t = u.unnamed.first().map(|f| f.ty.clone());
                            let body = match t {
                                Some(t) => self.ty(&t, &def_module, &generics, mode, &name),
                                None => "null".into(),
                            };
                            let _ = writeln!(out, "export type {name}{gen} = {body};\n");
                        }
                        Fields::Unnamed(u) => {
                            let parts: Vec<String> = u
                                .unnamed
                                .iter()
                                .map(|f| self.ty(&f.ty, &def_module, &generics, mode, &name))
                                .collect();
                            let _ = writeln!(
                                out,
                                "export type {name}{gen} = [{}];\n",
                                parts.join(", ")
                            );
                        }
                        Fields::Unit => {
                            let _ = writeln!(out, "export type {name}{gen} = null;\n");
                        }
                    }
                }
            }
            Item::Enum(e) => {
                let generics = wrap_generics(&e.generics);
                let gen = type_params(&generics);
                let a = serde_attrs(&e.attrs, mode);
                Self::doc_block(&mut out, &docs(&e.attrs), "");
                let mut arms = Vec::new();
                for v in &e.variants {
                    let va = serde_attrs(&v.attrs, mode);
                    if (mode == Mode::Out && va.skip_ser) || (mode == Mode::In && va.skip_de) {
                        continue;
                    }
                    let vname = va.rename.clone().unwrap_or_else(|| {
                        rename_variant(&v.ident.to_string(), a.rename_all.as_deref())
                    });
                    let vctx = format!("{name}.{}", v.ident);
                    let vdocs = docs(&v.attrs);
                    // Payload as an object body (struct variants) or a type (newtype/tuple).
                    let (obj, payload): (Option<(String, Vec<String>)>, Option<String>) =
                        match &v.fields {
                            Fields::Named(named) => (
                                Some(self.fields(
                                    named,
                                    va.rename_all.as_deref().or(a.rename_all_fields.as_deref()),
                                    &def_module,
                                    &generics,
                                    mode,
                                    &vctx,
                                    "    ",
                                )),
                                None,
                            ),
                            Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                                let t = u.unnamed.first().map(|f| f.ty.clone());
                                (
                                    None,
                                    t.map(|t| self.ty(&t, &def_module, &generics, mode, &vctx)),
                                )
                            }
                            Fields::Unnamed(u) => {
                                let parts: Vec<String> = u
                                    .unnamed
                                    .iter()
                                    .map(|f| self.ty(&f.ty, &def_module, &generics, mode, &vctx))
                                    .collect();
                                (None, Some(format!("[{}]", parts.join(", "))))
                            }
                            Fields::Unit => (None, None),
                        };
                    let obj_ty = |(body, flat): &(String, Vec<String>), extra: &str| -> String {
                        let base = format!("{{\n{extra}{body}  }}");
                        if flat.is_empty() {
                            base
                        } else {
                            format!("({base} & {})", flat.join(" & "))
                        }
                    };
                    let arm = if a.untagged {
                        match (&obj, &payload) {
                            (Some(o), _) => obj_ty(o, ""),
                            (None, Some(p)) => p.clone(),
                            (None, None) => "null".into(),
                        }
                    } else if let Some(tag) = &a.tag {
                        let tag_line = format!("    {}: {:?};\n", ts_key(tag), vname);
                        match (&a.content, &obj, &payload) {
                            (Some(c), Some(o), _) => format!(
                                "{{ {}: {:?}; {}: {} }}",
                                ts_key(tag),
                                vname,
                                ts_key(c),
                                obj_ty(o, "")
                            ),
                            (Some(c), None, Some(p)) => {
                                format!("{{ {}: {:?}; {}: {p} }}", ts_key(tag), vname, ts_key(c))
                            }
                            (_, Some(o), _) => obj_ty(o, &tag_line),
                            (None, None, Some(p)) => {
                                format!("({{ {}: {:?} }} & {p})", ts_key(tag), vname)
                            }
                            (_, None, None) => format!("{{ {}: {:?} }}", ts_key(tag), vname),
                        }
                    } else {
                        match (&obj, &payload) {
                            (Some(o), _) => format!("{{ {}: {} }}", ts_key(&vname), obj_ty(o, "")),
                            (None, Some(p)) => format!("{{ {}: {p} }}", ts_key(&vname)),
                            (None, None) => format!("{vname:?}"),
                        }
                    };
                    let mut d = String::new();
                    Self::doc_block(&mut d, &vdocs, "  ");
                    arms.push(format!("{d}  | {arm}"));
                }
                if arms.is_empty() {
                    let _ = writeln!(out, "export type {name}{gen} = never;\n");
                } else {
                    let _ = writeln!(out, "export type {name}{gen} =\n{};\n", arms.join("\n"));
                }
            }
            _ => {}
        }
        self.out.push_str(&out);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((src, roots)) = args.split_first() else {
        eprintln!("usage: fleet-policy-typegen SRC_DIR TYPE[:in]...");
        return ExitCode::from(2);
    };
    let mut defs = Vec::new();
    if let Err(e) = Gen::load(Path::new(src), Vec::new(), &mut defs) {
        eprintln!("fleet-policy-typegen: {e}");
        return ExitCode::from(1);
    }
    let mut g = Gen {
        defs,
        queue: VecDeque::new(),
        done: BTreeSet::new(),
        names: BTreeMap::new(),
        loose: BTreeSet::new(),
        notes: BTreeSet::new(),
        container_default: false,
        out: String::new(),
    };
    for root in roots {
        let (name, mode) = match root.strip_suffix(":in") {
            Some(n) => (n, Mode::In),
            None => (root.as_str(), Mode::Out),
        };
        let path: syn::Path = match syn::parse_str(name) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("fleet-policy-typegen: bad root {name}: {e}");
                return ExitCode::from(2);
            }
        };
        match g.resolve(&path, &[], mode) {
            Some(i) => {
                g.name_of(i, mode);
            }
            None => {
                eprintln!(
                    "fleet-policy-typegen: root type {name} not found (or lacks the serde derive)"
                );
                return ExitCode::from(1);
            }
        }
    }
    while let Some((i, mode)) = g.queue.pop_front() {
        if g.done.insert((i, mode)) {
            g.write_def(i, mode);
        }
    }
    let mut header = String::from(
        "// Generated by fleet-policy-typegen from the engine's Rust types (engine/src); do not edit.\n\
         // Results are what serde writes (and the CLI prints as JSON); options are what the engine reads.\n",
    );
    if g.loose.is_empty() {
        header.push_str("// Typed loosely: nothing.\n");
    } else {
        header.push_str("// Typed loosely (`unknown`), with the reason:\n");
        for l in &g.loose {
            let _ = writeln!(header, "//   {l}");
            eprintln!("fleet-policy-typegen: typed loosely: {l}");
        }
    }
    for n in &g.notes {
        let _ = writeln!(header, "// Note: {n}");
    }
    header.push_str("\n/** Any JSON value (a `serde_json::Value` in the engine). */\nexport type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };\n\n");
    print!("{header}{}", g.out);
    ExitCode::SUCCESS
}
