// The benches' harness (tests/bench/bench_support.h): best / median by the figure's direction,
// interleaved rounds whose order alternates, goals on ratios and on values, the command line,
// and a report that fails on a check and never on a timing.
#include "tests/bench/bench_support.h"

#include "tests/support/plain_test.h"

#include <cmath>
#include <string>

using namespace studio::bench;

TEST_CASE("samples: best follows the figure's direction, median of odd and even counts") {
    Samples times = lowerIsBetter();
    for (double v : {3.0, 1.0, 2.0, 5.0})
        times.add(v);
    CHECK(times.best() == 1.0);
    CHECK(times.median() == 2.5);
    CHECK(times.min() == 1.0);
    CHECK(times.max() == 5.0);
    Samples rates = higherIsBetter();
    for (double v : {3.0, 1.0, 2.0})
        rates.add(v);
    CHECK(rates.best() == 3.0);
    CHECK(rates.median() == 2.0);
    CHECK(std::isnan(lowerIsBetter().median()));
    const Json j = times.json(1000);
    CHECK(j["best"] == 1000.0);
    CHECK(j["n"] == 4);
}

TEST_CASE("interleave: the order of the sides alternates between rounds") {
    std::string order;
    interleave(3, {[&](int) { order += 'a'; }, [&](int) { order += 'b'; },
                   [&](int) {
                       order += 'c';
                   }});
    CHECK(order == "abccbaabc");
    int rounds = 0;
    interleave(0, {[&](int) {
                   ++rounds;
               }});
    CHECK(rounds == 0);
}

TEST_CASE("figures: ratio is ours / anchor; goals on the ratio or on the value") {
    Figure f{"bandwidth", "GB/s", 0.9, 1.0, "bare", Goal::ratioAtLeast(0.85), ""};
    REQUIRE(f.ratio());
    CHECK(*f.ratio() == doctest::Approx(0.9));
    CHECK(f.met() == true);
    f.ours = 0.8;
    CHECK(f.met() == false);
    Figure resume{"resume", "s", 2.5, std::nullopt, "", Goal::valueAtMost(3), ""};
    CHECK(!resume.ratio());
    CHECK(resume.met() == true);
    resume.ours = 3.2;
    CHECK(resume.met() == false);
    Figure noGoal{"paint", "ms", 4, 8.0, "direct", std::nullopt, ""};
    CHECK(!noGoal.met());
    CHECK(noGoal.json()["ratio"] == 0.5);
    // A goal on a ratio with no usable anchor is missed, not met.
    Figure broken{"x", "ms", 1, 0.0, "a", Goal::ratioAtMost(2), ""};
    CHECK(broken.met() == false);
}

TEST_CASE("options: --quick, --json and the bench's own arguments") {
    const char* argv[] = {"bench", "12", "--quick", "--json", "/tmp/x.json", "7"};
    const Options o = Options::parse(6, const_cast<char**>(argv));
    CHECK(o.quick);
    CHECK(o.jsonPath == "/tmp/x.json");
    REQUIRE(o.args.size() == 2);
    CHECK(o.pick(0, 1, 100) == 12);
    CHECK(o.pick(1, 1, 100) == 7);
    CHECK(o.pick(2, 1, 100) == 1);
    const char* full[] = {"bench"};
    CHECK(Options::parse(1, const_cast<char**>(full)).pick(0, 1, 100) == 100);
}

TEST_CASE("report: a failed check fails the bench; a missed goal does not") {
    Options o;
    o.quick = true;
    Report r("demo", o);
    r.anchor({"shell", "a shell loop", "", 1, "none", "", "4 ranks"});
    r.figure({"start", "ms", 10, 5.0, "shell", Goal::ratioAtMost(1.2), ""});
    r.check(true, "every rank started");
    CHECK(!r.failed());
    Json j = r.json();
    CHECK(j["mode"] == "quick");
    CHECK(j["figures"][0]["met"] == false);
    CHECK(j["anchors"][0]["pinning"] == "none");
    CHECK(j["ok"] == true);
    r.check(false, "a rank did not record its start");
    CHECK(r.failed());
    CHECK(r.json()["ok"] == false);
}

TEST_CASE("peak resident memory: this process's is positive and at least its current") {
    CHECK(selfPeakRssMiB() > 0);
    CHECK(procStatusMiB(0, "VmHWM") >= procStatusMiB(0, "VmRSS"));
    CHECK(procStatusMiB(0, "NoSuchField") == -1);
}
