// What the CLI and notebooks show: the progress line, durations, tagged log lines and the
// `show --json` contract.
#include "app/present/json_views.h"
#include "app/present/progress_bar.h"
#include "app/present/tagged_line.h"

#include <QtTest>

using namespace studio;

class TestPresent : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void taggedLines() {
        QCOMPARE(present::taggedLine(1, 3, "stdout", "hi"), std::string("[1,3]<stdout>:hi"));
    }

    void progressLine() {
        present::ProgressState s;
        s.secondary = "Training";
        s.elapsedSeconds = 83;
        s.step = 50;
        s.total = 200;
        s.metricName = "train:loss";
        s.metricValue = 0.2341;
        s.width = 100;
        const std::string line = present::renderProgress(s);
        QVERIFY2(line.find("Training") == 0, line.c_str());
        QVERIFY2(line.find(" 25%") != std::string::npos, line.c_str());
        QVERIFY2(line.find("01:23") != std::string::npos, line.c_str());
        QVERIFY2(line.find("step 50/200") != std::string::npos, line.c_str());
        QVERIFY2(line.find("train:loss=0.2341") != std::string::npos, line.c_str());
        QVERIFY(static_cast<int>(line.size()) <= 100);
        s.total = -1;
        s.step = -1;
        QVERIFY(present::renderProgress(s).find('%') == std::string::npos);
        QCOMPARE(present::formatDuration(3723), std::string("1:02:03"));
        QCOMPARE(present::formatDuration(5), std::string("5s"));
    }

    void showJsonContract() {
        store::ComponentDetail d;
        d.row.name = "j";
        d.row.status = "Failed";
        d.row.created = 10;
        d.ranks = {{0, 0, 0, 11, 1, 2, 0, 0, "cuda:0 (NVIDIA H100 80GB HBM3, 79.6 GiB)"},
                   {1, 0, 1, 12, 1, 2, std::nullopt, 15, ""}};
        store::MetricSummary s;
        s.add(1, 0, 1);
        s.add(3, 1, 2);
        d.metrics["loss"] = s;
        auto j = present::jobJson(d);
        for (const char* key : {"name", "status", "secondary_status", "status_transitions",
                                "experiment", "trial", "parameters", "metrics", "nodes", "ranks",
                                "exit_codes", "failure_reason", "created", "started", "ended"})
            QVERIFY2(j.contains(key), key);
        for (const char* key : {"rank", "node", "local_rank", "pid", "device", "started", "ended",
                                "exit_code", "signal"})
            QVERIFY2(j["ranks"][1].contains(key), key);
        QCOMPARE(j["ranks"][0]["device"], "cuda:0 (NVIDIA H100 80GB HBM3, 79.6 GiB)");
        QCOMPARE(j["ranks"][1]["device"], ""); // a rank that reported none
        QCOMPARE(j["exit_codes"]["0"].get<int>(), 0);
        QCOMPARE(j["exit_codes"]["1"].get<int>(), -15);
        QCOMPARE(j["metrics"]["loss"]["avg"].get<double>(), 2.0);
        QCOMPARE(j["metrics"]["loss"]["count"].get<int>(), 2);
        QVERIFY(j["started"].is_null());
    }
};

QTEST_GUILESS_MAIN(TestPresent)
#include "test_present.moc"
