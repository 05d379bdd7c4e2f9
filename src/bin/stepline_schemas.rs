//! Prints the JSON Schema bundle of every shape stepline's API reads and
//! returns (`stepline::schema::bundle`), for scripts/gen-types.mjs.
//!
//! `cargo run --features schema --bin stepline-schemas`

fn main() {
    // `snapshot`: the published slim snapshot schema (`stepline::schema::snapshot`) instead.
    if std::env::args().nth(1).as_deref() == Some("snapshot") {
        println!("{:#}", stepline::schema::snapshot());
    } else {
        println!("{:#}", stepline::schema::bundle());
    }
}
