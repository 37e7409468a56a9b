//! Token generation for the feature-on build. Every path names `::hotpath::__private` or
//! public `::hotpath` items; the body is never moved into a closure, so `return`, `?`,
//! `impl Trait` returns and borrows of `&mut self` behave exactly as written.

use proc_macro2::{Literal, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{Attribute, Block, ImplItem, Item, ReturnType, Signature};

use crate::attr::{FlowCall, MainArgs, MeasureArgs};

fn lit(l: &proc_macro::Literal) -> TokenStream {
    TokenStream::from(proc_macro::TokenStream::from(
        proc_macro::TokenTree::Literal(l.clone()),
    ))
}

/// `static __HOTPATH_SITE: CallSite = ...;` for a function named by its enclosing item.
fn site(kind: &str, label: Option<TokenStream>, span: Span) -> TokenStream {
    let kind = format_ident!("{}", kind);
    let label = match label {
        Some(l) => quote!(::core::option::Option::Some(#l)),
        None => quote!(::core::option::Option::None),
    };
    quote_spanned! {span=>
        static __HOTPATH_SITE: ::hotpath::__private::CallSite = ::hotpath::__private::CallSite::new(
            {
                fn __hp() -> &'static str {
                    ::hotpath::__private::type_name_of(&__hp)
                }
                __hp
            },
            #label,
            ::core::file!(),
            ::core::line!(),
            ::hotpath::__private::SiteKind::#kind,
        );
    }
}

fn contains_impl_trait(ty: &syn::Type) -> bool {
    ty.to_token_stream().into_iter().any(|t| tt_has_impl(&t))
}

fn tt_has_impl(t: &proc_macro2::TokenTree) -> bool {
    match t {
        proc_macro2::TokenTree::Ident(i) => i == "impl",
        proc_macro2::TokenTree::Group(g) => g.stream().into_iter().any(|t| tt_has_impl(&t)),
        _ => false,
    }
}

/// Where an `async fn`'s calls are reported.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum AsyncAs {
    /// A function (`#[measure]`): the timing section.
    Function,
    /// A future (`#[future_fn]`): the futures section.
    Future,
    /// Both (`#[measure(future = true)]`).
    Both,
}

impl AsyncAs {
    /// The site kind and the `MeasuredFuture` constructor.
    fn kind_and_ctor(self) -> (&'static str, proc_macro2::Ident) {
        match self {
            AsyncAs::Function => ("AsyncFunction", format_ident!("new")),
            AsyncAs::Future => ("Future", format_ident!("flow")),
            AsyncAs::Both => ("AsyncFunctionFuture", format_ident!("flow")),
        }
    }
}

/// The call `Box::pin(async move { .. })` when it is the whole body, as `#[async_trait]`
/// writes an `async fn` of a trait (any path ending in `Box::pin`, `async` with or without
/// `move`, nothing else). Such a function only makes the future its caller awaits, so the
/// future is what gets measured. The same shape as `attr::item`'s token-level check, which
/// lets `#[future_fn]` accept such a function in both builds.
fn boxed_async_block(block: &Block) -> Option<&syn::ExprCall> {
    let [syn::Stmt::Expr(syn::Expr::Call(call), None)] = block.stmts.as_slice() else {
        return None;
    };
    let syn::Expr::Path(f) = &*call.func else {
        return None;
    };
    let segs = &f.path.segments;
    let is_box_pin = f.qself.is_none()
        && f.attrs.is_empty()
        && call.attrs.is_empty()
        && segs.len() >= 2
        && segs.iter().all(|s| s.arguments.is_none())
        && segs[segs.len() - 2].ident == "Box"
        && segs[segs.len() - 1].ident == "pin";
    let is_async_block =
        matches!(call.args.first(), Some(syn::Expr::Async(a)) if a.attrs.is_empty());
    (is_box_pin && call.args.len() == 1 && is_async_block).then_some(call)
}

/// The instrumented body of a function with signature `sig`.
fn body(sig: &Signature, block: &Block, label: Option<TokenStream>, as_: AsyncAs) -> Block {
    let span = sig.ident.span();
    let stmts = &block.stmts;
    let tokens = if let (None, Some(call)) = (sig.asyncness, boxed_async_block(block)) {
        // `Box::pin(async move { .. })`: the async block measured in its place, in the box
        // the function returns. The block is moved as it is (its captures, its `Send`ness
        // and lifetimes are those of the code written; `MeasuredFuture` is `Send` and
        // outlives a lifetime exactly when the block does), so the box coerces to the same
        // return type; the site is an item of the function, named by it.
        let (kind, ctor) = as_.kind_and_ctor();
        let site = site(kind, label, span);
        let mut call = call.clone();
        let inner = call.args.pop().expect("one argument");
        call.args.push(syn::parse_quote_spanned! {span=>
            ::hotpath::__private::MeasuredFuture::#ctor(&__HOTPATH_SITE, #inner)
        });
        quote_spanned! {span=>
            {
                #site
                #call
            }
        }
    } else if sig.asyncness.is_some() {
        let (kind, ctor) = as_.kind_and_ctor();
        let site = site(kind, label, span);
        // Tells the compiler the async block's output type, so that `return x.into()` and
        // `?` infer as they did in the `async fn` (skipped when the type has `impl Trait`).
        let hint = match &sig.output {
            ReturnType::Type(_, ty) if !contains_impl_trait(ty) => quote! {
                #[allow(unreachable_code, clippy::diverging_sub_expression, clippy::needless_return)]
                if false {
                    let __hotpath_ret: #ty = loop {};
                    return __hotpath_ret;
                }
            },
            _ => quote!(),
        };
        quote_spanned! {span=>
            {
                #site
                ::hotpath::__private::MeasuredFuture::#ctor(&__HOTPATH_SITE, async move {
                    #hint
                    #(#stmts)*
                })
                .await
            }
        }
    } else {
        let site = site("Function", label, span);
        let enter = quote_spanned! {span=>
            let __hotpath_scope = {
                #site
                ::hotpath::__private::Scope::enter(&__HOTPATH_SITE)
            };
        };
        // The body stays the function's own block, as written, and is the last expression
        // of a block whose braces and parentheses have this crate's edition (2024; what
        // `mixed_site` spans carry, as tokens of a `macro_rules!` defined here would). In
        // 2024 the temporaries of a block's last expression are dropped before its locals:
        // here, all temporaries of the body (also those of its own last expression, which
        // the body's edition may let outlive the body) before the guard, on every way out
        // (the end, `return`, `?`), while the body's locals and temporaries keep their order
        // among themselves. The body is still in tail position, so the return type is its
        // expected type as before (coercions, closure signatures, `impl Trait` inference),
        // and nothing after it can be unreachable when it diverges. The parentheses stop
        // `unused_braces` from reading a one-expression body as needless braces.
        let at = Span::mixed_site().located_at(span);
        quote_spanned! {at=>
            {
                #enter
                (#block)
            }
        }
    };
    syn::parse2(tokens).expect("instrumented body parses")
}

/// `#[hotpath::measure]` / `#[hotpath::future_fn]`.
pub fn measure(args: &MeasureArgs, item: TokenStream, as_: AsyncAs) -> syn::Result<TokenStream> {
    let mut f: syn::ItemFn = syn::parse2(item)?;
    let label = args.label.as_ref().map(lit);
    *f.block = body(&f.sig, &f.block, label, as_);
    never_inline(&mut f.attrs, &f.sig);
    Ok(f.into_token_stream())
}

fn is_attr(a: &Attribute, name: &str) -> bool {
    let segs: Vec<String> = a
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segs.as_slice() {
        [only] => only == name,
        [first, last] => first == "hotpath" && last == name,
        _ => false,
    }
}

/// Instruments one function unless it opted out, is already measured, or is `const`.
/// `#[hotpath::skip]` is left in place: it expands afterwards and validates its own
/// arguments, exactly as in the feature-off build (where `measure_all` changes nothing).
fn measure_in_place(attrs: &mut Vec<Attribute>, sig: &Signature, block: &mut Block) {
    let skipped = attrs.iter().any(|a| is_attr(a, "skip"));
    let measured = attrs
        .iter()
        .any(|a| is_attr(a, "measure") || is_attr(a, "future_fn"));
    if skipped || measured || sig.constness.is_some() {
        return;
    }
    *block = body(sig, block, None, AsyncAs::Function);
    never_inline(attrs, sig);
}

/// With `hotpath-callgrind`, a measured function that is not `async` gets
/// `#[inline(never)]` (in place of an `#[inline]` of its own): callgrind counts
/// instructions per function symbol, so the function needs a frame of its own for the
/// `icount` section to find it by its name. Costs one call where the compiler would have
/// inlined it.
#[cfg(feature = "hotpath-callgrind")]
fn never_inline(attrs: &mut Vec<Attribute>, sig: &Signature) {
    if sig.asyncness.is_some() {
        return;
    }
    attrs.retain(|a| !a.path().is_ident("inline"));
    attrs.push(syn::parse_quote!(#[inline(never)]));
}

#[cfg(not(feature = "hotpath-callgrind"))]
fn never_inline(_: &mut Vec<Attribute>, _: &Signature) {}

fn measure_items(items: &mut [Item]) {
    for item in items {
        match item {
            Item::Fn(f) => measure_in_place(&mut f.attrs, &f.sig, &mut f.block),
            Item::Impl(i) => measure_impl(i),
            Item::Mod(m) => {
                if let Some((_, items)) = &mut m.content {
                    measure_items(items);
                }
            }
            _ => {}
        }
    }
}

fn measure_impl(i: &mut syn::ItemImpl) {
    for it in &mut i.items {
        if let ImplItem::Fn(f) = it {
            measure_in_place(&mut f.attrs, &f.sig, &mut f.block);
        }
    }
}

/// `#[hotpath::measure_all]`.
pub fn measure_all(item: TokenStream) -> syn::Result<TokenStream> {
    let mut item: Item = syn::parse2(item)?;
    match &mut item {
        Item::Impl(i) => measure_impl(i),
        Item::Mod(m) => {
            if let Some((_, items)) = &mut m.content {
                measure_items(items);
            }
        }
        _ => {}
    }
    Ok(item.into_token_stream())
}

/// `#[hotpath::main]`.
pub fn main(args: &MainArgs, item: TokenStream) -> syn::Result<TokenStream> {
    let mut f: syn::ItemFn = syn::parse2(item)?;
    let span = f.sig.ident.span();
    let name = &f.sig.ident;
    let mut calls = TokenStream::new();
    if let Some(ps) = &args.percentiles {
        let ps = ps.iter().map(|p| Literal::f64_unsuffixed(*p));
        calls.extend(quote!(.percentiles(&[#(#ps),*])));
    }
    if let Some(fmt) = args.format {
        let v = format_ident!("{}", fmt.variant());
        calls.extend(quote!(.format(::hotpath::Format::#v)));
    }
    calls.extend(TokenStream::from(crate::limits::calls(&args.limits)));
    if let Some(p) = &args.output_path {
        let p = lit(p);
        calls.extend(quote!(.output_path(#p)));
    }
    if let Some(ms) = args.timeout {
        let ms = Literal::u64_unsuffixed(ms);
        calls.extend(quote!(.timeout(::core::time::Duration::from_millis(#ms))));
    }
    if let Some(b) = &args.overhead_budget {
        let b = lit(b);
        calls.extend(quote!(.overhead_budget(#b as f64)));
    }
    if let Some(r) = &args.report {
        let r = lit(r);
        calls.extend(quote!(.report(#r)));
    }
    // `main` measured as any function, inside the guard that prints the report; nested,
    // not spliced, so that its block keeps the drop order `body` gives it.
    let measured = body(&f.sig, &f.block, None, AsyncAs::Function);
    let new_block = quote_spanned! {span=>
        {
            let __hotpath_guard = ::hotpath::HotpathGuardBuilder::new(
                ::core::concat!(::core::module_path!(), "::", ::core::stringify!(#name)),
            )
            #calls
            .build();
            #measured
        }
    };
    *f.block = syn::parse2(new_block)?;
    let allocator = allocator_item(args);
    Ok(quote!(#allocator #f))
}

/// The `#[global_allocator]` item, with `hotpath-alloc`: `Tracking` over `System` or the
/// `allocator = ...` given; none for `allocator = none` (the program declares its own).
#[cfg(feature = "hotpath-alloc")]
fn allocator_item(args: &MainArgs) -> TokenStream {
    let inner = match &args.allocator {
        Some(p) if p.to_string() == "none" => return TokenStream::new(),
        Some(p) => TokenStream::from(p.clone()),
        None => quote!(::std::alloc::System),
    };
    quote! {
        #[global_allocator]
        static __HOTPATH_GLOBAL_ALLOCATOR: ::hotpath::alloc::Tracking<#inner> =
            ::hotpath::alloc::Tracking::new(#inner);
    }
}

#[cfg(not(feature = "hotpath-alloc"))]
fn allocator_item(_: &MainArgs) -> TokenStream {
    TokenStream::new()
}

fn ts(t: &proc_macro::TokenStream) -> TokenStream {
    TokenStream::from(t.clone())
}

/// A label given as an expression, borrowed as `&str`: `::hotpath::__private::label(&(e))`.
fn label_ref(label: &proc_macro::TokenStream) -> TokenStream {
    let label = ts(label);
    quote!(::hotpath::__private::label(&(#label)))
}

/// `static __HOTPATH_FLOW: FlowSite = ...;` of a `channel!` or `stream!` (with a label
/// given as an expression, the site has none: the expansion asks it for the label's).
fn flow_site(call: &FlowCall) -> TokenStream {
    let label = match &call.label {
        Some(l) if !call.label_expr => {
            let l = ts(l);
            quote!(::core::option::Option::Some(#l))
        }
        _ => quote!(::core::option::Option::None),
    };
    let iter = call.iter;
    quote! {
        static __HOTPATH_FLOW: ::hotpath::__private::FlowSite = ::hotpath::__private::FlowSite::new(
            ::core::file!(),
            ::core::line!(),
            #label,
            #iter,
        );
    }
}

/// `channel!(ctor(..), ..)`: the constructor call with its message type stamped, its
/// capacity argument evaluated once in place, and the endpoints wrapped.
pub fn channel(call: &FlowCall) -> TokenStream {
    let ctor = call
        .ctor
        .as_ref()
        .expect("a channel call has a constructor");
    let site = flow_site(call);
    let path: TokenStream = ctor
        .path
        .iter()
        .cloned()
        .map(|t| TokenStream::from(proc_macro::TokenStream::from(t)))
        .collect();
    let turbofish = match (&ctor.message, ctor.watch) {
        (Some(m), false) => {
            let m = ts(m);
            quote!(::<::hotpath::__private::Stamped<#m>>)
        }
        (Some(m), true) => {
            let m = ts(m);
            quote!(::<#m>)
        }
        (None, _) => quote!(),
    };
    let declared = match &call.capacity {
        Some(c) => {
            let c = ts(c);
            quote!(::core::option::Option::Some::<usize>(#c))
        }
        None => quote!(::core::option::Option::None),
    };
    let args = ts(&ctor.args.stream());
    if let Some(label) = call.label.as_ref().filter(|_| call.label_expr) {
        let label = label_ref(label);
        let (prelude, ctor_call, ctor_capacity) = if ctor.capacity_arg {
            (
                quote!(let __hotpath_capacity: usize = #args;),
                quote!(#path #turbofish (__hotpath_capacity)),
                quote!(::core::option::Option::Some(__hotpath_capacity)),
            )
        } else {
            (
                quote!(),
                quote!(#path #turbofish (#args)),
                quote!(::core::option::Option::None),
            )
        };
        return quote! {{
            #site
            #prelude
            ::hotpath::__private::channel_labelled(
                #ctor_call,
                &__HOTPATH_FLOW,
                #label,
                #ctor_capacity,
                #declared,
            )
        }};
    }
    if ctor.capacity_arg {
        quote! {{
            #site
            let __hotpath_capacity: usize = #args;
            ::hotpath::__private::channel(
                &__HOTPATH_FLOW,
                #path #turbofish (__hotpath_capacity),
                ::core::option::Option::Some(__hotpath_capacity),
                #declared,
            )
        }}
    } else {
        quote! {{
            #site
            ::hotpath::__private::channel(
                &__HOTPATH_FLOW,
                #path #turbofish (#args),
                ::core::option::Option::None,
                #declared,
            )
        }}
    }
}

/// `stream!(s, ..)`.
pub fn stream(call: &FlowCall) -> TokenStream {
    let site = flow_site(call);
    let expr = ts(&call.expr);
    if let Some(label) = call.label.as_ref().filter(|_| call.label_expr) {
        let label = label_ref(label);
        return quote! {{
            #site
            ::hotpath::__private::FlowStream::labelled(#expr, &__HOTPATH_FLOW, #label)
        }};
    }
    quote! {{
        #site
        ::hotpath::__private::FlowStream::new(&__HOTPATH_FLOW, #expr)
    }}
}

/// `future!(f, ..)`: the future measured per call, named by the enclosing function.
pub fn future(call: &FlowCall) -> TokenStream {
    let expr = ts(&call.expr);
    if let Some(label) = call.label.as_ref().filter(|_| call.label_expr) {
        let site = site("Future", None, Span::call_site());
        let label = label_ref(label);
        return quote! {{
            #site
            ::hotpath::__private::FlowFuture::labelled(
                ::core::future::IntoFuture::into_future(#expr),
                &__HOTPATH_SITE,
                #label,
            )
        }};
    }
    let site = site("Future", call.label.as_ref().map(ts), Span::call_site());
    quote! {{
        #site
        ::hotpath::__private::FlowFuture::new(
            &__HOTPATH_SITE,
            ::core::future::IntoFuture::into_future(#expr),
        )
    }}
}
