//! Prints the JSON Schema bundle of every shape stepline's API reads and
//! returns (`stepline::schema::bundle`), for scripts/gen-types.mjs.
//!
//! `cargo run --features schema --bin stepline-schemas`

fn main() {
    println!("{:#}", stepline::schema::bundle());
}
