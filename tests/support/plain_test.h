// What every plain (Qt-free) test includes: doctest, Qt Test's comparison of floating-point
// values (so an assertion converted from QCOMPARE keeps its meaning), and readable C strings,
// vectors and pairs in messages. The main() is in doctest_main.cpp (library
// studio_plain_test_main).
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <utility>
#include <vector>

namespace studio::testing {

// A double compared as QCOMPARE compares doubles: within 1e-12 relative; an expected value
// within 1e-12 of zero takes an actual one within 1e-12 of zero; infinities need the same
// infinity and NaN needs NaN. Write REQUIRE(actual == nearly(expected)).
struct Nearly {
    double expected;
};
inline Nearly nearly(double expected) {
    return Nearly{expected};
}

inline bool operator==(double actual, Nearly n) {
    const double e = n.expected;
    if (std::isnan(e))
        return std::isnan(actual);
    if (std::isinf(e))
        return std::isinf(actual) && (actual < 0) == (e < 0);
    if (std::abs(e) <= 1e-12)
        return std::abs(actual) <= 1e-12;
    return std::abs(actual - e) * 1e12 <= std::min(std::abs(actual), std::abs(e));
}

inline std::ostream& operator<<(std::ostream& out, Nearly n) {
    const auto precision = out.precision(17);
    out << "nearly " << n.expected;
    out.precision(precision);
    return out;
}

} // namespace studio::testing

namespace doctest {

// C strings print as their text (a row's name in INFO), not as an address.
template <>
struct StringMaker<const char*> {
    static String convert(const char* text) { return text ? String(text) : String("nullptr"); }
};

template <typename T>
struct StringMaker<std::vector<T>> {
    static String convert(const std::vector<T>& values) {
        String out = "{";
        for (std::size_t i = 0; i < values.size(); ++i)
            out += (i ? String(", ") : String()) + toString(values[i]);
        return out + "}";
    }
};

template <typename A, typename B>
struct StringMaker<std::pair<A, B>> {
    static String convert(const std::pair<A, B>& p) {
        return "(" + toString(p.first) + ", " + toString(p.second) + ")";
    }
};

} // namespace doctest
