//! A JSON pointer that is written out only when something needs it.

/// Where a value sits in a document, as a chain of borrowed steps: a walk over
/// every node can pass one down without allocating, and writes the pointer text
/// ([`At::pointer`]) only for the few nodes it reports.
///
/// ```
/// use stepline::json::At;
/// let root = At::Root("");
/// let messages = root.key("messages");
/// let first = messages.item(0);
/// assert_eq!(first.key("a/b").pointer(), "/messages/0/a~1b");
/// ```
#[derive(Clone, Copy, Debug)]
pub enum At<'a> {
    /// The pointer the walk starts from, as text (`""` for the whole document).
    Root(&'a str),
    /// A member of the object at the parent.
    Key(&'a At<'a>, &'a str),
    /// An item of the array at the parent.
    Item(&'a At<'a>, usize),
}

impl<'a> At<'a> {
    /// The member `key` of the object here.
    pub fn key(&'a self, key: &'a str) -> At<'a> {
        At::Key(self, key)
    }

    /// The item `i` of the array here.
    pub fn item(&'a self, i: usize) -> At<'a> {
        At::Item(self, i)
    }

    /// The pointer text, escaping `~` and `/` in keys (RFC 6901).
    pub fn pointer(&self) -> String {
        let mut out = String::new();
        self.write(&mut out);
        out
    }

    fn write(&self, out: &mut String) {
        match *self {
            At::Root(path) => out.push_str(path),
            At::Key(parent, key) => {
                parent.write(out);
                super::push_token(out, key);
            }
            At::Item(parent, i) => {
                parent.write(out);
                out.push('/');
                out.push_str(&i.to_string());
            }
        }
    }
}
