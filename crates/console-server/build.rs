//! Release builds embed ../../dist (rust-embed): a new build of the console must rebuild this
//! crate, whose file names change with every build.
fn main() {
    println!("cargo:rerun-if-changed=../../dist");
}
