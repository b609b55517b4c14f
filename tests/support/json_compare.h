// JSON_COMPARE for Qt Tests: QCOMPARE cannot take nlohmann JSON values (they convert to
// anything), so this compares two documents and prints both when they differ.
#pragma once

#include <QtTest>

#include <nlohmann/json.hpp>

#define JSON_COMPARE(actual, expected)                                                             \
    do {                                                                                           \
        const nlohmann::json a_ = (actual);                                                        \
        const nlohmann::json e_ = (expected);                                                      \
        QVERIFY2(a_ == e_, ("\n   actual: " + a_.dump() + "\n expected: " + e_.dump()).c_str());   \
    } while (false)
