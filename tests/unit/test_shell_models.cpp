// The studio window's shell models: fuzzy matching (which alignment wins, what ranks first), the
// command palette's index and list (ordering by score, kind and recency; typing on narrows to
// the last hits and finds the same as a fresh query), notices from live batches and tuning
// progress (each ending once; StopTraining told as a rule), the notifications list, settings
// round trips with out-of-range values named, the layout key per screen size, and the welcome
// tab's example catalogue against resources/.
#include "models/shell/example_catalog.h"
#include "models/shell/fuzzy_match.h"
#include "models/shell/notices.h"
#include "models/shell/palette_model.h"
#include "models/shell/studio_settings.h"
#include "models/shell/window_layout.h"

#include <QAbstractItemModelTester>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace studio::models;

namespace {

QStringList list(std::initializer_list<const char*> texts) {
    QStringList out;
    for (const char* t : texts)
        out << QString::fromUtf8(t);
    return out;
}

std::vector<PaletteEntry> named(const QStringList& names) {
    std::vector<PaletteEntry> out;
    int order = 0;
    for (const QString& n : names)
        out.push_back({PaletteKind::Action, n, {}, {}, n, order++});
    return out;
}

QStringList names(const PaletteIndex& index, const std::vector<PaletteHit>& hits) {
    QStringList out;
    for (const auto& h : hits)
        out << index.entry(h.entry).name;
    return out;
}

LiveStatus status(const QString& job, const QString& s, const QString& secondary = {},
                  const QString& message = {}) {
    LiveStatus out;
    out.job = job;
    out.status = s;
    out.secondaryStatus = secondary;
    out.message = message;
    out.time = 1'700'000'000;
    return out;
}

} // namespace

class TestShellModels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void fuzzyMatchesSubsequencesOnly_data() {
        QTest::addColumn<QString>("pattern");
        QTest::addColumn<QString>("text");
        QTest::addColumn<bool>("matches");
        QTest::newRow("prefix") << QStringLiteral("sto") << QStringLiteral("Stop job") << true;
        QTest::newRow("initials") << QStringLiteral("sj") << QStringLiteral("Stop job") << true;
        QTest::newRow("spaces ignored")
            << QStringLiteral("stop job") << QStringLiteral("Stopjob") << true;
        QTest::newRow("case-insensitive")
            << QStringLiteral("NEW") << QStringLiteral("new job") << true;
        QTest::newRow("out of order") << QStringLiteral("js") << QStringLiteral("Stop") << false;
        QTest::newRow("missing letter")
            << QStringLiteral("stopx") << QStringLiteral("Stop job") << false;
        QTest::newRow("longer than text")
            << QStringLiteral("abcdef") << QStringLiteral("abc") << false;
        QTest::newRow("empty pattern") << QStringLiteral("") << QStringLiteral("anything") << true;
    }
    void fuzzyMatchesSubsequencesOnly() {
        QFETCH(QString, pattern);
        QFETCH(QString, text);
        QFETCH(bool, matches);
        const auto m = fuzzyMatch(pattern, text);
        QCOMPARE(m.has_value(), matches);
        if (m && !pattern.isEmpty()) {
            // The positions spell the pattern (spaces aside) in order.
            QString spelled;
            for (int p : m->positions)
                spelled.append(text[p].toLower());
            QCOMPARE(spelled, pattern.toLower().remove(QLatin1Char(' ')));
            QVERIFY(std::is_sorted(m->positions.begin(), m->positions.end()));
        }
    }

    void fuzzyPrefersWordStartsAndRuns() {
        // "nj" picks the word starts of "New job", not the 'n' and 'j' inside other words.
        const auto m = fuzzyMatch(u"nj", u"New job");
        QVERIFY(m);
        QCOMPARE(m->positions, (std::vector<int>{0, 4}));
        // The best alignment, not the first: "run" in "training-run" is a word, not r…u…n.
        const auto r = fuzzyMatch(u"run", u"rerun-training-run");
        QVERIFY(r);
        QCOMPARE(r->positions, (std::vector<int>{15, 16, 17}));
        QVERIFY(startsWord(u"newJob", 3));
        QVERIFY(startsWord(u"run-3", 4));
        QVERIFY(!startsWord(u"run", 1));
        // A whole-word run beats scattered letters; an exact text beats a longer one.
        QVERIFY(fuzzyMatch(u"stop", u"Stop job")->score >
                fuzzyMatch(u"stop", u"Show tuning options")->score);
        QVERIFY(fuzzyMatch(u"logs", u"logs")->score > fuzzyMatch(u"logs", u"logs-2")->score);
        // Leading text costs a little, so the same word earlier wins.
        QVERIFY(fuzzyMatch(u"job", u"job stop")->score > fuzzyMatch(u"job", u"stop job")->score);
    }

    void paletteOrdersByScoreThenKindThenOrder() {
        PaletteIndex index;
        index.setEntries(PaletteKind::Action,
                         named({QStringLiteral("Stop job"), QStringLiteral("New job…"),
                                QStringLiteral("Settings…")}));
        std::vector<PaletteEntry> jobs;
        for (int i = 0; i < 3; ++i)
            jobs.push_back({PaletteKind::Job,
                            QStringLiteral("stop-test-%1").arg(i),
                            {},
                            {},
                            QStringLiteral("stop-test-%1").arg(i),
                            i});
        index.setEntries(PaletteKind::Job, jobs);
        QCOMPARE(index.size(), 6);
        QCOMPARE(index.count(PaletteKind::Job), 3);
        QCOMPARE(index.entry(4).kind, PaletteKind::Job);

        // Same score for "stop" in all four: the action first (commands mode), then jobs in
        // their order (newest first).
        auto hits = index.query(QStringLiteral("stop"), PaletteMode::commands(), 10);
        QCOMPARE(names(index, hits),
                 (list({"Stop job", "stop-test-0", "stop-test-1", "stop-test-2"})));
        // Ctrl+P: jobs only.
        hits = index.query(QStringLiteral("stop"), PaletteMode::open(), 10);
        QCOMPARE(names(index, hits), (list({"stop-test-0", "stop-test-1", "stop-test-2"})));
        // A better score wins over kind: "stop-test-2" typed out.
        hits = index.query(QStringLiteral("stoptest2"), PaletteMode::commands(), 10);
        QCOMPARE(names(index, hits).value(0), QStringLiteral("stop-test-2"));
        // Empty: everything of the mode in kind order, limited.
        hits = index.query({}, PaletteMode::commands(), 4);
        QCOMPARE(names(index, hits), (list({"Stop job", "New job…", "Settings…", "stop-test-0"})));
    }

    void typingOnFindsWhatAFreshQueryFinds() {
        std::vector<PaletteEntry> jobs;
        for (int i = 0; i < 2000; ++i)
            jobs.push_back({PaletteKind::Job,
                            QStringLiteral("%1-run-%2")
                                .arg(i % 3 ? QStringLiteral("fmnist") : QStringLiteral("lm"))
                                .arg(i),
                            {},
                            {},
                            {},
                            i});
        PaletteIndex typed;
        typed.setEntries(PaletteKind::Job, jobs);
        const QString text = QStringLiteral("lmrun19");
        for (int n = 1; n <= text.size(); ++n) {
            PaletteIndex fresh;
            fresh.setEntries(PaletteKind::Job, jobs);
            const auto a = typed.query(text.left(n), PaletteMode::open(), 50);
            const auto b = fresh.query(text.left(n), PaletteMode::open(), 50);
            QCOMPARE(names(typed, a), names(fresh, b));
        }
        // Deleting a character (not an extension) searches everything again.
        const auto back = typed.query(QStringLiteral("lmrun1"), PaletteMode::open(), 5000);
        PaletteIndex fresh;
        fresh.setEntries(PaletteKind::Job, jobs);
        QCOMPARE(back.size(),
                 fresh.query(QStringLiteral("lmrun1"), PaletteMode::open(), 5000).size());
        QVERIFY(back.size() > 100);
    }

    void paletteModelShowsHits() {
        PaletteModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        model.paletteIndex().setEntries(
            PaletteKind::Action,
            {{PaletteKind::Action, QStringLiteral("Stop job"), QStringLiteral("Job"),
              QStringLiteral("Ctrl+."), QStringLiteral("stop"), 0}});
        model.paletteIndex().setEntries(PaletteKind::Notebook,
                                        {{PaletteKind::Notebook,
                                          QStringLiteral("spot-training.ipynb"),
                                          QStringLiteral("/w"),
                                          {},
                                          QStringLiteral("/w/spot.ipynb"),
                                          0}});
        model.setQuery(QStringLiteral("st"));
        QCOMPARE(model.rowCount(), 2);
        const QModelIndex first = model.index(0, 0);
        QCOMPARE(first.data().toString(), QStringLiteral("Stop job"));
        QCOMPARE(first.data(PaletteModel::ShortcutRole).toString(), QStringLiteral("Ctrl+."));
        QCOMPARE(first.data(PaletteModel::KindNameRole).toString(), QStringLiteral("Action"));
        QCOMPARE(first.data(PaletteModel::MatchedRole).value<QList<int>>(), (QList<int>{0, 1}));
        QCOMPARE(first.data(Qt::AccessibleTextRole).toString(),
                 QStringLiteral("Action: Stop job, Ctrl+."));
        model.setMode(PaletteMode::open(), model.query());
        QCOMPARE(model.rowCount(), 1);
        QCOMPARE(model.entryAt(0)->target, QStringLiteral("/w/spot.ipynb"));
        QVERIFY(!model.entryAt(1));
    }

    void noticesTellEachEndingOnce() {
        NoticeFeed feed;
        LiveBatch b;
        b.statuses = {status(QStringLiteral("a"), QStringLiteral("InProgress")),
                      status(QStringLiteral("b"), QStringLiteral("Failed"), {},
                             QStringLiteral("rank 1 exited with code 3")),
                      status(QStringLiteral("c"), QStringLiteral("Stopped"), {},
                             QStringLiteral("Stopped by rule LossNotDecreasing")),
                      status(QStringLiteral("d"), QStringLiteral("InProgress"),
                             QStringLiteral("Interrupted"), QStringLiteral("spot notice"))};
        b.notifications = {{QStringLiteral("a"), QStringLiteral("Overfit"),
                            QStringLiteral("Overfit: eval loss rose"), 1.0}};
        auto out = feed.fromBatch(b);
        QCOMPARE(out.size(), std::size_t(4));
        QCOMPARE(out[0].title, QStringLiteral("b failed"));
        QVERIFY(out[0].urgent());
        QCOMPARE(out[0].target, QStringLiteral("job:b"));
        QCOMPARE(out[1].kind, NoticeKind::RuleFired);
        QCOMPARE(out[1].title, QStringLiteral("Rule LossNotDecreasing stopped c"));
        QCOMPARE(out[2].kind, NoticeKind::JobEnded);
        QCOMPARE(out[2].status, QStringLiteral("Interrupted"));
        QCOMPARE(out[3].kind, NoticeKind::RuleFired);
        // The same statuses again: nothing new. d resumes and is interrupted again: told again.
        QVERIFY(feed.fromBatch(b).size() == 1); // the Notify notification is an event each time
        LiveBatch resumed;
        resumed.statuses = {
            status(QStringLiteral("d"), QStringLiteral("InProgress"), QStringLiteral("Training"))};
        QVERIFY(feed.fromBatch(resumed).empty());
        LiveBatch again;
        again.statuses = {status(QStringLiteral("d"), QStringLiteral("InProgress"),
                                 QStringLiteral("Interrupted")),
                          status(QStringLiteral("d"), QStringLiteral("Completed"))};
        out = feed.fromBatch(again);
        QCOMPARE(out.size(), std::size_t(2));
        QCOMPARE(out[1].title, QStringLiteral("d completed"));
        QVERIFY(!out[1].urgent());
    }

    void tuningNoticesOnlyNewBests() {
        NoticeFeed feed;
        QVERIFY(!feed.fromTuning(QStringLiteral("t"), std::nullopt, {}, 0));
        auto n = feed.fromTuning(QStringLiteral("t"), 0.5, QStringLiteral("t-001"), 0);
        QVERIFY(n);
        QCOMPARE(n->kind, NoticeKind::TuningBest);
        QCOMPARE(n->target, QStringLiteral("tuning:t"));
        QVERIFY(!feed.fromTuning(QStringLiteral("t"), 0.5, QStringLiteral("t-001"), 0));
        QVERIFY(feed.fromTuning(QStringLiteral("t"), 0.4, QStringLiteral("t-003"), 0));
    }

    void noticeListKeepsNewestFirstAndCountsUnread() {
        NoticeListModel model;
        QAbstractItemModelTester tester(&model,
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
        QSignalSpy unread(&model, &NoticeListModel::unreadChanged);
        for (int i = 0; i < NoticeListModel::kMax + 5; ++i)
            model.add({NoticeKind::JobEnded, QStringLiteral("job %1").arg(i), {}, {}, {}, 0});
        QCOMPARE(model.rowCount(), NoticeListModel::kMax);
        QCOMPARE(model.index(0, 0).data().toString(),
                 QStringLiteral("job %1").arg(NoticeListModel::kMax + 4));
        QCOMPARE(model.unread(), NoticeListModel::kMax);
        model.markRead();
        QCOMPARE(model.unread(), 0);
        QCOMPARE(unread.last().at(0).toInt(), 0);
        model.clear();
        QCOMPARE(model.rowCount(), 0);
    }

    void settingsRoundTripAndNameBadValues() {
        QTemporaryDir dir;
        const QString ini = dir.filePath(QStringLiteral("studio.ini"));
        QSettings(ini, QSettings::IniFormat).setValue(QStringLiteral("tabs"), list({"x"}));
        StudioSettings s = StudioSettings::load(ini);
        QCOMPARE(s.theme, 0);
        QVERIFY(s.notifies(NoticeKind::TuningBest));
        QCOMPARE(s.workspaceOr(QStringLiteral("/h")), QStringLiteral("/h/workspace"));
        s.theme = 2;
        s.notify[static_cast<std::size_t>(NoticeKind::RuleFired)] = false;
        s.defaultCluster = QStringLiteral("lab");
        s.workspace = QStringLiteral("/data/ws");
        s.smoothing = 0.25;
        s.refreshMs = 5000;
        s.save(ini);
        const StudioSettings back = StudioSettings::load(ini);
        QCOMPARE(back.theme, 2);
        QVERIFY(!back.notifies(NoticeKind::RuleFired));
        QVERIFY(back.notifies(NoticeKind::JobEnded));
        QCOMPARE(back.defaultCluster, QStringLiteral("lab"));
        QCOMPARE(back.workspaceOr(QStringLiteral("/h")), QStringLiteral("/data/ws"));
        QCOMPARE(back.smoothing, 0.25);
        QCOMPARE(back.refreshMs, 5000);
        QVERIFY(back.problems.isEmpty());
        // Other keys stay.
        QCOMPARE(QSettings(ini, QSettings::IniFormat).value(QStringLiteral("tabs")).toStringList(),
                 list({"x"}));
        {
            QSettings raw(ini, QSettings::IniFormat);
            raw.setValue(QStringLiteral("theme"), 7);
            raw.setValue(QStringLiteral("charts/smoothing"), QStringLiteral("lots"));
            raw.setValue(QStringLiteral("refreshMs"), 5);
        }
        const StudioSettings bad = StudioSettings::load(ini);
        QCOMPARE(bad.theme, 0);
        QCOMPARE(bad.smoothing, 0.6);
        QCOMPARE(bad.refreshMs, 1000);
        QCOMPARE(bad.problems.size(), 3);
        QVERIFY(bad.problems.join(QLatin1Char('\n')).contains(QLatin1String("refreshMs: 5")));
    }

    void layoutPerScreenSize() {
        QCOMPARE(WindowLayout::group({1920, 1050}), QStringLiteral("layout/1920x1050/"));
        QVERIFY(WindowLayout::maximizeOnFirstStart({1366, 740}));
        QVERIFY(WindowLayout::maximizeOnFirstStart({1600, 860}));
        QVERIFY(!WindowLayout::maximizeOnFirstStart({1920, 1050}));
    }

    void catalogListsEveryExample() {
        const ExampleCatalog c =
            ExampleCatalog::load(QStringLiteral(STUDIO_SOURCE_DIR "/resources"));
        QVERIFY2(c.problems.isEmpty(), qPrintable(c.problems.join(QLatin1Char('\n'))));
        int notebooks = 0, clusters = 0;
        for (const Example& e : c.examples) {
            notebooks += e.kind == Example::Kind::Notebook;
            clusters += !e.cluster.isEmpty();
            QVERIFY(e.seconds > 0);
        }
        QCOMPARE(notebooks, 6);
        QCOMPARE(clusters, 2);
        QCOMPARE(durationText(40), QStringLiteral("about 40 s"));
        QCOMPARE(durationText(200), QStringLiteral("about 3 min"));
    }

    void catalogNamesWhatDrifted() {
        QTemporaryDir dir;
        QDir(dir.path()).mkpath(QStringLiteral("examples"));
        QFile f(dir.filePath(QStringLiteral("examples/new.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QFile list(dir.filePath(QStringLiteral("welcome.json")));
        QVERIFY(list.open(QIODevice::WriteOnly));
        list.write(
            R"({"examples":[{"file":"examples/gone.json","title":"t","shows":"s","seconds":3}]})");
        list.close();
        const ExampleCatalog c = ExampleCatalog::load(dir.path());
        QCOMPARE(c.problems.size(), 2);
        QVERIFY(c.problems[0].contains(QLatin1String("gone.json does not exist")));
        QVERIFY(c.problems[1].contains(QLatin1String("examples/new.json is not listed")));
    }
};

QTEST_GUILESS_MAIN(TestShellModels)
#include "test_shell_models.moc"
