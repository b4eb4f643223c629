// A source for tests/docs_check.py: docgen/docs.py's `reading` generator
// must count 4 lines for one(), 6 for two() (two definitions), 5 for
// Thing::three() and skip the declarations.
#include <string>

int one(int x);  // a declaration: not counted

// one: the comment right above counts.
int one(int x) {

  return x + 1;
}

int two() { return 2; }

std::string two(const std::string& s) {
  const std::string brace = "}";  // a brace in a string
  /* and { in a comment */
  return s + brace + '}';
}

struct Thing {
  int three() const;
};

int Thing::three() const {
  int n = 0;
  for (int i = 0; i < 3; ++i) { n += 1; }
  return n;
}
