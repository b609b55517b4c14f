// The main() of every plain (Qt-free) test: doctest's, built once.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>
