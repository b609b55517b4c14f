// The leaderboard filter language: evaluation of comparisons, boolean operators, quoting, numbers
// and missing values against one row, and parse errors with their positions and hints.
#include "models/experiments/leaderboard_query.h"

#include <QtTest>

#include <limits>
#include <map>

using namespace studio::models;

namespace {

const QStringList& fields() {
    static const QStringList f = {QStringLiteral("Name"),
                                  QStringLiteral("Status"),
                                  QStringLiteral("Experiment"),
                                  QStringLiteral("Trial"),
                                  QStringLiteral("lr"),
                                  QStringLiteral("batch_size"),
                                  QStringLiteral("optimizer"),
                                  QStringLiteral("eval:accuracy - Max"),
                                  QStringLiteral("train:loss - Last"),
                                  QStringLiteral("notes"),
                                  QStringLiteral("tag.owner")};
    return f;
}

QueryValue text(const char* s) {
    QueryValue v;
    v.present = true;
    v.text = QString::fromUtf8(s);
    return v;
}

QueryValue number(double d, const char* s) {
    QueryValue v = text(s);
    v.number = d;
    return v;
}

// The row every evaluation case reads: "train:loss - Last" is missing.
QueryValue rowValue(int field) {
    static const std::map<int, QueryValue> row = {
        {0, text("ddp-resnet-3")}, {1, text("Completed")},      {2, text("fashion-mnist")},
        {3, text("trial-3")},      {4, number(0.001, "0.001")}, {5, number(64, "64")},
        {6, text("Adam")},         {7, number(0.93, "0.93")},   {9, text("baseline run")},
        {10, text("ana")}};
    auto it = row.find(field);
    return it == row.end() ? QueryValue{} : it->second;
}

} // namespace

class TestLeaderboardQuery : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void evaluates_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<bool>("expected");
        auto row = [](const char* q, bool e) {
            QTest::newRow(q) << QString::fromUtf8(q) << e;
        };
        row("", true);
        row("   ", true);
        row("status = Completed", true);
        row("status = completed", true);
        row("status == Completed", true);
        row("STATUS = Completed", true);
        row("status != Completed", false);
        row("lr > 0.001", false);
        row("lr >= 0.001", true);
        row("lr > 1e-4", true);
        row("lr < 1E-2", true);
        row("lr <= .001", true);
        row("lr = 0.001", true);
        row("lr > -1", true);
        row("lr = -1", false);
        row("batch_size = 64.0", true);
        row("batch_size = +64", true);
        row("batch_size ~ 6", true);
        row("name ~ \"DDP\"", true);
        row("name ~ resnet", true);
        row("name !~ ddp", false);
        row("name = 'ddp-resnet-3'", true);
        row("name = \"ddp-resnet-3\"", true);
        row("name > ddp", true);
        row("optimizer < b", true);
        row("optimizer = ADAM", true);
        row("\"eval:accuracy - Max\" >= 0.9", true);
        row("'eval:accuracy - Max' < 0.9", false);
        row("\"train:loss - Last\" > 0", false);
        row("\"train:loss - Last\" < 0", false);
        row("\"train:loss - Last\" != 1", true);
        row("\"train:loss - Last\" !~ x", true);
        row("status = Completed and lr > 0.001", false);
        row("status = Completed or lr > 0.001", true);
        row("status = Completed AND lr < 1", true);
        row("status = Completed && lr < 1", true);
        row("status = Failed || lr < 1", true);
        row("not lr > 0.01", true);
        row("NOT lr < 0.01", false);
        row("!(lr > 0.01)", true);
        row("not not lr < 0.01", true);
        row("(status = Failed or optimizer = adam) and batch_size = 64", true);
        row("status = Failed or status = Completed and lr > 1", false);
        row("status = Completed or status = Failed and lr > 1", true);
        row("(status = Completed or status = Failed) and lr > 1", false);
        row("tag.owner = ana", true);
        row("TAG.OWNER ~ AN", true);
        row("tag.team = x", false);
        row("tag.team != x", true);
        row("notes ~ baseline", true);
        row("name = \"ddp\\\"x\"", false);
        row("status = Completed and \"eval:accuracy - Max\" >= 0.9 and name ~ \"ddp\" and "
            "lr > 0.0001",
            true);
    }
    void evaluates() {
        QFETCH(QString, query);
        QFETCH(bool, expected);
        const auto result = LeaderboardQuery::compile(query, fields());
        QVERIFY2(result.ok(), qPrintable(result.error ? result.error->text() : QString()));
        QCOMPARE(result.query.matches(rowValue), expected);
    }

    void rejects_data() {
        QTest::addColumn<QString>("query");
        QTest::addColumn<int>("position");
        QTest::addColumn<QString>("message");
        auto row = [](const char* q, int pos, const char* m) {
            QTest::newRow(q) << QString::fromUtf8(q) << pos << QString::fromUtf8(m);
        };
        row("lr >", 5, "expected a value after '>'");
        row("status = Completed and lr > ", 29, "expected a value after '>'");
        row("lr > and", 6, "expected a value after '>', found 'and'");
        row("lrr > 1", 1, "unknown field \"lrr\" (did you mean \"lr\"?)");
        row("status = x and stauts = y", 16, "unknown field \"stauts\" (did you mean \"Status\"?)");
        row("accuracy > 0.9", 1,
            "unknown field \"accuracy\" (did you mean \"eval:accuracy - Max\"?)");
        row("foo = 1", 1, "unknown field \"foo\"");
        row("(lr > 1", 8, "missing ')' to close the '(' at 1");
        row("(lr > 1 x", 9, "expected ')' to close the '(' at 1 after '1', found 'x'");
        row("lr > 1)", 7, "unexpected ')' (no '(' to close)");
        row("lr > 1 status = x", 8, "expected 'and' or 'or' after '1', found 'status'");
        row("lr 1", 4,
            "expected an operator (= != < <= > >= ~ !~) after 'lr', found '1' (quote names that "
            "have spaces: \"a b\")");
        row("name", 5, "expected an operator (= != < <= > >= ~ !~) after 'name'");
        row("name = \"abc", 8, "unterminated string: missing the closing \"");
        row("name = 'abc", 8, "unterminated string: missing the closing '");
        row("lr & 1", 4, "unexpected '&' (write 'and')");
        row("lr > 1 | x", 8, "unexpected '|' (write 'or')");
        row("and lr > 1", 1, "expected a field name, found 'and'");
        row("lr > 1 and", 11, "expected a field name after 'and'");
        row("lr > 1 or not", 14, "expected a field name after 'not'");
        row("()", 2, "expected a field name after '(', found ')'");
        row("lr = = 1", 6, "expected a value after '=', found '='");
        row("lr > 1 and (name = \"x", 20, "unterminated string: missing the closing \"");
    }
    void rejects() {
        QFETCH(QString, query);
        QFETCH(int, position);
        QFETCH(QString, message);
        const auto result = LeaderboardQuery::compile(query, fields());
        QVERIFY(!result.ok());
        QCOMPARE(result.error->message, message);
        QCOMPARE(result.error->position, position);
        QCOMPARE(result.error->text(), QStringLiteral("at %1: %2").arg(position).arg(message));
        QVERIFY(result.query.matchesAll());
    }

    void readsFields() {
        const auto r = LeaderboardQuery::compile(
            QStringLiteral("lr > 1 and (name ~ a or lr < 0) and tag.nobody = x"), fields());
        QVERIFY(r.ok());
        QCOMPARE(r.query.fieldsRead(), (QList<int>{4, 0}));
        QVERIFY(LeaderboardQuery().matchesAll());
        QVERIFY(LeaderboardQuery().matches([](int) { return QueryValue{}; }));
    }

    void firstMatchingFieldWins() {
        const QStringList f = {QStringLiteral("Name"), QStringLiteral("name")};
        const auto r = LeaderboardQuery::compile(QStringLiteral("NAME = x"), f);
        QVERIFY(r.ok());
        QCOMPARE(r.query.fieldsRead(), QList<int>{0});
    }

    void writesClauses_data() {
        QTest::addColumn<QString>("filter");
        QTest::addColumn<QString>("clause");
        QTest::addColumn<QString>("expected");
        QTest::addColumn<bool>("matches");
        QTest::newRow("number, quoted field")
            << QString() << equalsClause(QStringLiteral("eval:accuracy - Max"), 0.93)
            << QStringLiteral("\"eval:accuracy - Max\" = 0.93") << true;
        QTest::newRow("bare text")
            << QStringLiteral("lr < 1")
            << equalsClause(QStringLiteral("optimizer"), QStringLiteral("Adam"))
            << QStringLiteral("lr < 1 and optimizer = Adam") << true;
        QTest::newRow("text with spaces and quotes")
            << QString() << equalsClause(QStringLiteral("notes"), QStringLiteral("say \"hi\""))
            << QStringLiteral("notes = \"say \\\"hi\\\"\"") << false;
        QTest::newRow("keyword value is quoted")
            << QString() << equalsClause(QStringLiteral("Name"), QStringLiteral("and"))
            << QStringLiteral("Name = \"and\"") << false;
        QTest::newRow("or is parenthesized")
            << QStringLiteral("status = Failed or lr > 1")
            << equalsClause(QStringLiteral("Status"), QStringLiteral("Completed"))
            << QStringLiteral("(status = Failed or lr > 1) and Status = Completed") << false;
        QTest::newRow("NaN") << QString()
                             << equalsClause(QStringLiteral("lr"),
                                             std::numeric_limits<double>::quiet_NaN())
                             << QStringLiteral("lr = NaN") << false;
    }
    void writesClauses() {
        QFETCH(QString, filter);
        QFETCH(QString, clause);
        QFETCH(QString, expected);
        QFETCH(bool, matches);
        const QString text = andClause(filter, clause);
        QCOMPARE(text, expected);
        const auto r = LeaderboardQuery::compile(text, fields());
        QVERIFY2(r.ok(), qPrintable(r.error ? r.error->text() : QString()));
        QCOMPARE(r.query.matches(rowValue), matches);
    }

    void closestNames_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("expected");
        QTest::newRow("one edit") << QStringLiteral("lrr") << QStringLiteral("lr");
        QTest::newRow("case") << QStringLiteral("NAME") << QStringLiteral("Name");
        QTest::newRow("swap") << QStringLiteral("optimzier") << QStringLiteral("optimizer");
        QTest::newRow("contained") << QStringLiteral("loss") << QStringLiteral("train:loss - Last");
        QTest::newRow("too far") << QStringLiteral("xyz") << QString();
        QTest::newRow("short") << QStringLiteral("q") << QString();
    }
    void closestNames() {
        QFETCH(QString, name);
        QFETCH(QString, expected);
        QCOMPARE(closestName(name, fields()), expected);
    }
};

QTEST_GUILESS_MAIN(TestLeaderboardQuery)
#include "test_leaderboard_query.moc"
