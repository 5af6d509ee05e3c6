//! `#[derive(ToJson)]`: the JSON writer of the result types, from their `#[serde(...)]`
//! attributes, so that it writes what serde's `Serialize` writes.
//!
//! Supported: container `rename_all`, `rename_all_fields`, `tag`, `tag` + `content`,
//! `untagged`, `into`; field `rename`, `skip_serializing`, `skip_serializing_if`, `flatten`;
//! variant `rename`. Named structs, newtype structs, and unit / newtype / struct variants.
//! Attributes that only affect decoding are ignored; anything else is a compile error.

use crate::{each_serde_meta, rename_field, rename_variant};
use proc_macro2::{Span, TokenStream as TokenStream2};
use quote::quote;
use syn::{spanned::Spanned, Data, DeriveInput, Fields, LitStr};

fn unsupported(span: Span, what: &str) -> syn::Error {
    syn::Error::new(
        span,
        format!("#[derive(ToJson)] does not support #[serde({what})]; write `impl ToJson` by hand"),
    )
}

/// How an enum writes its variant name.
enum Tagging {
    External,
    Internal(String),
    Adjacent(String, String),
    Untagged,
}

struct Container {
    rename_all: Option<(String, Span)>,
    rename_all_fields: Option<(String, Span)>,
    tag: Option<String>,
    content: Option<String>,
    untagged: bool,
    into: Option<syn::Type>,
}

#[derive(Default)]
struct Member {
    rename: Option<String>,
    skip: bool,
    skip_if: Option<syn::ExprPath>,
    flatten: bool,
}

fn container_attrs(attrs: &[syn::Attribute]) -> syn::Result<Container> {
    let mut c = Container {
        rename_all: None,
        rename_all_fields: None,
        tag: None,
        content: None,
        untagged: false,
        into: None,
    };
    each_serde_meta(attrs, |name, meta| {
        match name {
            "rename_all" | "rename_all_fields" | "tag" | "content" | "into" => {
                let lit: LitStr = meta.value()?.parse()?;
                match name {
                    "rename_all" => c.rename_all = Some((lit.value(), lit.span())),
                    "rename_all_fields" => c.rename_all_fields = Some((lit.value(), lit.span())),
                    "tag" => c.tag = Some(lit.value()),
                    "content" => c.content = Some(lit.value()),
                    _ => c.into = Some(lit.parse()?),
                }
            }
            "untagged" => c.untagged = true,
            // Decoding only (a container `default` fills absent fields).
            "deny_unknown_fields" => {}
            "default" => {
                if meta.input.peek(syn::Token![=]) {
                    let _: LitStr = meta.value()?.parse()?;
                }
            }
            "expecting" => {
                let _: LitStr = meta.value()?.parse()?;
            }
            other => return Err(unsupported(meta.path.span(), other)),
        }
        Ok(())
    })?;
    Ok(c)
}

fn member_attrs(attrs: &[syn::Attribute]) -> syn::Result<Member> {
    let mut m = Member::default();
    each_serde_meta(attrs, |name, meta| {
        match name {
            "rename" => {
                let lit: LitStr = meta.value()?.parse()?;
                m.rename = Some(lit.value());
            }
            "skip_serializing_if" => {
                let lit: LitStr = meta.value()?.parse()?;
                m.skip_if = Some(lit.parse()?);
            }
            "skip_serializing" | "skip" => m.skip = true,
            "flatten" => m.flatten = true,
            // Decoding only.
            "alias" | "deserialize_with" => {
                let _: LitStr = meta.value()?.parse()?;
            }
            "default" => {
                if meta.input.peek(syn::Token![=]) {
                    let _: LitStr = meta.value()?.parse()?;
                }
            }
            other => return Err(unsupported(meta.path.span(), other)),
        }
        Ok(())
    })?;
    Ok(m)
}

/// Derives `ToJson` (and `ToJsonFields` for named structs).
pub(crate) fn expand(input: &DeriveInput) -> syn::Result<TokenStream2> {
    let c = container_attrs(&input.attrs)?;
    let name = &input.ident;
    let mut generics = input.generics.clone();
    for p in generics.type_params_mut() {
        p.bounds.push(syn::parse_quote!(crate::json_out::ToJson));
    }
    let (impl_g, ty_g, where_c) = generics.split_for_impl();
    if let Some(into) = &c.into {
        return Ok(quote! {
            #[automatically_derived]
            impl #impl_g crate::json_out::ToJson for #name #ty_g #where_c {
                fn to_json(&self, out: &mut crate::json_out::JsonOut) {
                    let v: #into = ::core::convert::Into::into(::core::clone::Clone::clone(self));
                    crate::json_out::ToJson::to_json(&v, out);
                }
            }
        });
    }
    match &input.data {
        Data::Struct(s) => {
            if c.tag.is_some() || c.untagged || c.rename_all_fields.is_some() {
                return Err(unsupported(input.ident.span(), "tag/untagged on a struct"));
            }
            match &s.fields {
                Fields::Named(_) => {
                    let (binds, fields) = named_fields(&s.fields, c.rename_all.as_ref())?;
                    Ok(quote! {
                        #[automatically_derived]
                        impl #impl_g crate::json_out::ToJsonFields for #name #ty_g #where_c {
                            fn to_json_fields(&self, out: &mut crate::json_out::JsonOut) {
                                let Self { #binds .. } = self;
                                #fields
                            }
                        }
                        #[automatically_derived]
                        impl #impl_g crate::json_out::ToJson for #name #ty_g #where_c {
                            fn to_json(&self, out: &mut crate::json_out::JsonOut) {
                                out.begin_object();
                                crate::json_out::ToJsonFields::to_json_fields(self, out);
                                out.end_object();
                            }
                        }
                    })
                }
                Fields::Unnamed(u) if u.unnamed.len() == 1 => {
                    let m = u.unnamed.iter().map(|f| member_attrs(&f.attrs)).next();
                    if let Some(m) = m {
                        let m = m?;
                        if m.skip || m.skip_if.is_some() || m.flatten || m.rename.is_some() {
                            return Err(unsupported(u.span(), "attributes on a newtype field"));
                        }
                    }
                    Ok(quote! {
                        #[automatically_derived]
                        impl #impl_g crate::json_out::ToJson for #name #ty_g #where_c {
                            fn to_json(&self, out: &mut crate::json_out::JsonOut) {
                                crate::json_out::ToJson::to_json(&self.0, out);
                            }
                        }
                    })
                }
                _ => Err(syn::Error::new(
                    s.fields.span(),
                    "#[derive(ToJson)] supports named and newtype structs",
                )),
            }
        }
        Data::Enum(e) => {
            let tagging = match (&c.tag, &c.content, c.untagged) {
                (None, None, false) => Tagging::External,
                (Some(t), None, false) => Tagging::Internal(t.clone()),
                (Some(t), Some(k), false) => Tagging::Adjacent(t.clone(), k.clone()),
                (None, None, true) => Tagging::Untagged,
                _ => return Err(unsupported(input.ident.span(), "this tag combination")),
            };
            let all_unit = e.variants.iter().all(|v| matches!(v.fields, Fields::Unit));
            let unit_write = match &tagging {
                Tagging::External => Some(quote! { out.str(__name); }),
                Tagging::Internal(tag) | Tagging::Adjacent(tag, _) => {
                    Some(quote! { out.tag_only(#tag, __name); })
                }
                Tagging::Untagged => None,
            };
            if let (true, Some(write), false) = (all_unit, unit_write, e.variants.is_empty()) {
                // A unit-only enum picks its name, then makes one call (not one per variant).
                let mut arms = Vec::new();
                for v in &e.variants {
                    let ident = &v.ident;
                    let vname = variant_name(v, &c)?;
                    arms.push(quote! { Self::#ident => #vname, });
                }
                return Ok(quote! {
                    #[automatically_derived]
                    impl #impl_g crate::json_out::ToJson for #name #ty_g #where_c {
                        fn to_json(&self, out: &mut crate::json_out::JsonOut) {
                            let __name: &str = match self {
                                #(#arms)*
                            };
                            #write
                        }
                    }
                });
            }
            let mut arms = Vec::new();
            for v in &e.variants {
                arms.push(variant_arm(v, &c, &tagging)?);
            }
            Ok(quote! {
                #[automatically_derived]
                impl #impl_g crate::json_out::ToJson for #name #ty_g #where_c {
                    fn to_json(&self, out: &mut crate::json_out::JsonOut) {
                        match self {
                            #(#arms)*
                        }
                    }
                }
            })
        }
        Data::Union(_) => Err(syn::Error::new(
            input.ident.span(),
            "#[derive(ToJson)] supports structs and enums",
        )),
    }
}

/// The bindings (`field: __fN,`) and the entry writes of named fields, in declaration order.
/// The bindings are references (both `let Self {..} = self` and a match on `&self` bind so),
/// as serde passes them to `skip_serializing_if`.
fn named_fields(
    fields: &Fields,
    rule: Option<&(String, Span)>,
) -> syn::Result<(TokenStream2, TokenStream2)> {
    let mut binds = TokenStream2::new();
    let mut writes = TokenStream2::new();
    for (i, f) in fields.iter().enumerate() {
        let m = member_attrs(&f.attrs)?;
        if m.skip {
            continue;
        }
        let ident = f
            .ident
            .as_ref()
            .ok_or_else(|| syn::Error::new(f.span(), "unnamed field"))?;
        let var = syn::Ident::new(&format!("__f{i}"), Span::call_site());
        binds.extend(quote! { #ident: #var, });
        let raw = ident.to_string();
        let raw = raw.strip_prefix("r#").unwrap_or(&raw);
        let key = match (&m.rename, rule) {
            (Some(r), _) => r.clone(),
            (None, Some(rule)) => rename_field(rule, raw)?,
            (None, None) => raw.to_string(),
        };
        let write = |v: &syn::Ident| {
            if m.flatten {
                quote! { crate::json_out::ToJsonFields::to_json_fields(#v, out); }
            } else {
                quote! { crate::json_out::ToJson::to_json_field(#v, #key, out); }
            }
        };
        if m.flatten && m.rename.is_some() {
            return Err(unsupported(f.span(), "flatten with rename"));
        }
        writes.extend(match &m.skip_if {
            // The common case, without a second test of the option in its `to_json`.
            Some(path) if is_option_is_none(path) => {
                let inner = syn::Ident::new(&format!("__v{i}"), Span::call_site());
                let w = write(&inner);
                quote! { if let ::core::option::Option::Some(#inner) = #var { #w } }
            }
            Some(path) => {
                let w = write(&var);
                quote! { if !#path(#var) { #w } }
            }
            None => write(&var),
        });
    }
    Ok((binds, writes))
}

/// `Option::is_none` (as written in the attribute).
fn is_option_is_none(path: &syn::ExprPath) -> bool {
    let names: Vec<String> = path
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    names == ["Option", "is_none"]
}

/// The written name of a variant.
fn variant_name(v: &syn::Variant, c: &Container) -> syn::Result<String> {
    let m = member_attrs(&v.attrs)?;
    if m.skip || m.skip_if.is_some() || m.flatten {
        return Err(unsupported(v.span(), "skip/flatten on a variant"));
    }
    let raw = v.ident.to_string();
    Ok(match (&m.rename, &c.rename_all) {
        (Some(r), _) => r.clone(),
        (None, Some(rule)) => rename_variant(rule, &raw)?,
        (None, None) => raw,
    })
}

/// The match arm writing one variant (with its tag, as `tagging` says).
fn variant_arm(v: &syn::Variant, c: &Container, tagging: &Tagging) -> syn::Result<TokenStream2> {
    let ident = &v.ident;
    let vname = variant_name(v, c)?;
    Ok(match &v.fields {
        Fields::Unit => {
            let body = match tagging {
                Tagging::External => quote! { out.str(#vname); },
                Tagging::Internal(tag) | Tagging::Adjacent(tag, _) => quote! {
                    out.tag_only(#tag, #vname);
                },
                Tagging::Untagged => quote! { out.null(); },
            };
            quote! { Self::#ident => { #body } }
        }
        Fields::Unnamed(u) if u.unnamed.len() == 1 => {
            if let Some(f) = u.unnamed.first() {
                let fm = member_attrs(&f.attrs)?;
                if fm.skip || fm.skip_if.is_some() || fm.flatten || fm.rename.is_some() {
                    return Err(unsupported(
                        f.span(),
                        "attributes on a newtype variant's field",
                    ));
                }
            }
            let write = quote! { crate::json_out::ToJson::to_json(__v, out); };
            let body = match tagging {
                Tagging::External => quote! {
                    out.begin_object();
                    crate::json_out::ToJson::to_json_field(__v, #vname, out);
                    out.end_object();
                },
                // serde writes the tag, then the inner struct's fields.
                Tagging::Internal(tag) => quote! {
                    out.begin_tagged(#tag, #vname);
                    crate::json_out::ToJsonFields::to_json_fields(__v, out);
                    out.end_object();
                },
                Tagging::Adjacent(tag, content) => quote! {
                    out.begin_tagged(#tag, #vname);
                    crate::json_out::ToJson::to_json_field(__v, #content, out);
                    out.end_object();
                },
                Tagging::Untagged => write,
            };
            quote! { Self::#ident(__v) => { #body } }
        }
        Fields::Named(_) => {
            let (binds, fields) = named_fields(&v.fields, c.rename_all_fields.as_ref())?;
            let body = match tagging {
                Tagging::External => quote! {
                    out.begin_object();
                    out.key(#vname);
                    out.begin_object();
                    #fields
                    out.end_object();
                    out.end_object();
                },
                Tagging::Internal(tag) => quote! {
                    out.begin_tagged(#tag, #vname);
                    #fields
                    out.end_object();
                },
                Tagging::Adjacent(tag, content) => quote! {
                    out.begin_tagged(#tag, #vname);
                    out.key(#content);
                    out.begin_object();
                    #fields
                    out.end_object();
                    out.end_object();
                },
                Tagging::Untagged => quote! {
                    out.begin_object();
                    #fields
                    out.end_object();
                },
            };
            quote! { Self::#ident { #binds .. } => { #body } }
        }
        Fields::Unnamed(_) => {
            return Err(syn::Error::new(
                v.span(),
                "#[derive(ToJson)] supports unit, newtype and struct variants",
            ))
        }
    })
}
