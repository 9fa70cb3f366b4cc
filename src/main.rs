fn main() {
    println!("{}", chat_noir::answer());
}
