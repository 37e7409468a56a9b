// The builder's service limits and `tokio_runtime!` outside a runtime: a warning and a
// report note with the `hotpath` and `tokio` features, nothing without; never a panic.
fn main() {
    let _guard = hotpath::HotpathGuardBuilder::new("ui::main")
        .format(hotpath::Format::None)
        .sql_limit(5)
        .http_limit(5)
        .server_limit(5)
        .route_scope(false)
        .build();
    hotpath::tokio_runtime!();
    let rt = tokio::runtime::Builder::new_current_thread().build().unwrap();
    hotpath::tokio_runtime!(rt.handle(), label = "ui");
    assert_eq!(rt.block_on(async { 1 + 1 }), 2);
}
