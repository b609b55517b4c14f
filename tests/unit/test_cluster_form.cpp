// The cluster dialog's form read into a cluster definition: a valid one (hosts with and without
// user and port, blank lines skipped), and each field's problem with what it says (data rows).
#include "models/clusters/cluster_form.h"

#include <QtTest>

using namespace studio::models;

class TestClusterForm : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void formProblems_data() {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QString>("hosts");
        QTest::addColumn<QString>("identity");
        QTest::addColumn<QString>("ifname");
        QTest::addColumn<QString>("field");
        QTest::addColumn<QString>("says");
        const QString ok = QStringLiteral("studio@10.0.0.1\n\n10.0.0.2:2222\n");
        QTest::newRow("valid") << "gpu-lab" << ok << ""
                               << ""
                               << ""
                               << "";
        QTest::newRow("no hosts") << "gpu-lab"
                                  << " \n"
                                  << ""
                                  << ""
                                  << "hosts"
                                  << "at least one";
        QTest::newRow("bad line") << "gpu-lab"
                                  << "a\nbad host"
                                  << ""
                                  << ""
                                  << "hosts"
                                  << "line 2: \"bad host\"";
        QTest::newRow("bad port") << "gpu-lab"
                                  << "a:99999"
                                  << ""
                                  << ""
                                  << "hosts"
                                  << "port must be a number from 1 to 65535";
        QTest::newRow("twice") << "gpu-lab"
                               << "a\na"
                               << ""
                               << ""
                               << "hosts"
                               << "listed twice";
        QTest::newRow("bad name") << "-lab" << ok << ""
                                  << ""
                                  << "name"
                                  << "up to 63";
        QTest::newRow("taken") << "taken" << ok << ""
                               << ""
                               << "name"
                               << "exists";
        QTest::newRow("built-in") << "local" << ok << ""
                                  << ""
                                  << "name"
                                  << "built-in";
        QTest::newRow("no key") << "gpu-lab" << ok << "/no/such/key"
                                << ""
                                << "identity"
                                << "/no/such/key does not exist";
        QTest::newRow("ifname") << "gpu-lab" << ok << ""
                                << "an-interface-name-too-long"
                                << "socket_ifname"
                                << "15 characters";
    }
    void formProblems() {
        QFETCH(QString, name);
        QFETCH(QString, hosts);
        QFETCH(QString, identity);
        QFETCH(QString, ifname);
        QFETCH(QString, field);
        QFETCH(QString, says);
        ClusterForm f;
        f.name = name.toStdString();
        f.hosts = hosts.toStdString();
        f.identityFile = identity.toStdString();
        f.socketIfname = ifname.toStdString();
        const ClusterFormResult r = readClusterForm(f, {"taken", "local"});
        if (field.isEmpty()) {
            QVERIFY(r.ok());
            QCOMPARE(r.config.hosts.size(), std::size_t(2));
            QCOMPARE(r.config.hosts[1].port, 2222);
            return;
        }
        QCOMPARE(r.problems.size(), std::size_t(1));
        const auto it = r.problems.find(field.toStdString());
        QVERIFY2(it != r.problems.end(),
                 qPrintable(QString::fromStdString(r.problems.begin()->first + ": " +
                                                   r.problems.begin()->second.front())));
        QVERIFY2(QString::fromStdString(it->second.front()).contains(says),
                 it->second.front().c_str());
    }
};

QTEST_GUILESS_MAIN(TestClusterForm)
#include "test_cluster_form.moc"
