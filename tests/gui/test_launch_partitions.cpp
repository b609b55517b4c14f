// The launch dialog on a Slurm cluster: "Partition" lists the cluster's partitions off the GUI
// thread (a fetcher that gives canned partitions, held back to see "loading…"), selects the
// spec's, the cluster's or Slurm's default one, writes it to slurm.partition and keeps what a
// cloned spec had; a cluster whose slurmrestd does not answer (a free loopback port) shows an
// error naming it and the dialog stays usable; a slurm section off Slurm is named.
#include "engine/remote/cluster.h"
#include "engine/spec/spec_parser.h"
#include "tests/support/json_compare.h"
#include "tests/support/screenshot.h"
#include "widgets/launch/launch_dialog.h"

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QTest>

#include <nlohmann/json.hpp>

#include <arpa/inet.h>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

using namespace studio;
using studio::widgets::ClusterChoice;
using studio::widgets::LaunchDialog;
using studio::widgets::PartitionChoice;
using Json = nlohmann::json;

namespace {

constexpr int kComputeSection = 3;

template <typename T>
T* field(const QWidget& dialog, const char* name) {
    T* w = dialog.findChild<T*>(QString::fromLatin1(name));
    if (!w)
        qFatal("no %s named %s", T::staticMetaObject.className(), name);
    return w;
}

void selectData(QComboBox* combo, const QString& data) {
    const int i = combo->findData(data);
    QVERIFY2(i >= 0, qPrintable(data));
    combo->setCurrentIndex(i);
}

// A loopback port where nothing listens: bound, so nothing else takes it, but never listening,
// so a connection to it is refused. fd keeps it.
int refusedPort(int& fd) {
    fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    if (fd < 0 || ::bind(fd, reinterpret_cast<sockaddr*>(&a), len) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0)
        return 0;
    return ntohs(a.sin_port);
}

Json parsed(const QString& text) {
    return Json::parse(text.toStdString());
}

// A stand-in for slurmrestd's partition list that the test releases when it wants the answer
// to arrive. Counts its calls (a second look at a cluster's list is served from the dialog's).
class HeldPartitions {
public:
    explicit HeldPartitions(std::vector<PartitionChoice> partitions)
        : m_partitions(std::move(partitions)) {}
    std::vector<PartitionChoice> operator()() {
        ++m_calls;
        std::unique_lock lock(m_mutex);
        m_released.wait(lock, [this] { return m_open; });
        return m_partitions;
    }
    void release() {
        {
            std::lock_guard lock(m_mutex);
            m_open = true;
        }
        m_released.notify_all();
    }
    int calls() const { return m_calls; }

private:
    std::vector<PartitionChoice> m_partitions;
    std::mutex m_mutex;
    std::condition_variable m_released;
    bool m_open = false;
    std::atomic<int> m_calls{0};
};

ClusterChoice slurmChoice(const QString& name, const QString& partition,
                          std::shared_ptr<HeldPartitions> source) {
    ClusterChoice c;
    c.name = name;
    c.hosts = 0;
    c.slurm = true;
    c.partition = partition;
    c.partitions = [source] {
        return (*source)();
    };
    return c;
}

} // namespace

class TestLaunchPartitions : public QObject {
    Q_OBJECT

    void settle(LaunchDialog& d) { QTRY_VERIFY_WITH_TIMEOUT(!d.validationPending(), 5000); }

    // While slurmrestd has not answered: "loading…", and the dialog answers; then Slurm's
    // default partition is chosen, and goes into the spec.
    void checkLoadingThenAnswer(LaunchDialog& d, HeldPartitions& hpc) {
        auto* runOn = field<QComboBox>(d, "runOn");
        auto* partition = field<QComboBox>(d, "slurmPartition");
        auto* status = field<QLabel>(d, "slurmPartitionStatus");
        // The source is held until the test releases it: had choosing the cluster waited for its
        // partitions, selectData would not return; it returns with the combo still loading.
        selectData(runOn, QStringLiteral("hpc"));
        QVERIFY(partition->isVisible());
        QCOMPARE(partition->currentText(), QStringLiteral("loading…"));
        QVERIFY(status->isVisible());
        QCOMPARE(status->text(), QStringLiteral("Loading the partitions of cluster hpc…"));
        field<QSpinBox>(d, "instanceCount")->setValue(2);
        settle(d);
        QVERIFY2(d.problemCount() == 0, qPrintable(d.problems().join(QLatin1Char('\n'))));
        QVERIFY(!parsed(d.spec()).contains("slurm")); // nothing chosen yet
        QCOMPARE(hpc.calls(), 1);

        // The answer: Slurm's default partition is chosen, and goes into the spec.
        hpc.release();
        QTRY_COMPARE(partition->count(), 3);
        QVERIFY(status->isHidden());
        QCOMPARE(partition->currentData().toString(), QStringLiteral("debug"));
        QCOMPARE(partition->currentText(),
                 QStringLiteral("debug  ·  2 nodes, 16 CPUs  ·  Slurm's default"));
        QCOMPARE(partition->itemText(2), QStringLiteral("long  ·  1 node, 64 CPUs  ·  DRAIN"));
        settle(d);
        Json spec = parsed(d.spec());
        JSON_COMPARE(spec["cluster"], "hpc");
        JSON_COMPARE(spec["slurm"], Json({{"partition", "debug"}}));
        selectData(partition, QStringLiteral("gpu"));
        settle(d);
        QCOMPARE(d.problemCount(), 0);
        const auto result = d.parsedSpec();
        QVERIFY(result.ok() && result.spec->slurm);
        QCOMPARE(result.spec->slurm->partition, std::string("gpu"));
        QCOMPARE(result.spec->cluster, std::string("hpc"));
        shoot(&d, "launch-slurm-partitions.png");
    }

    // Another cluster: its own default partition (the cluster's, over Slurm's); back: the list
    // seen before, without asking again.
    void checkOtherClusterAndBack(LaunchDialog& d, HeldPartitions& hpc, HeldPartitions& lab) {
        auto* runOn = field<QComboBox>(d, "runOn");
        auto* partition = field<QComboBox>(d, "slurmPartition");
        selectData(runOn, QStringLiteral("lab"));
        lab.release();
        QTRY_COMPARE(partition->count(), 2);
        QCOMPARE(partition->currentData().toString(), QStringLiteral("a100"));
        // Back: the list seen before, without asking again; the default again.
        selectData(runOn, QStringLiteral("hpc"));
        QCOMPARE(partition->count(), 3);
        QCOMPARE(partition->currentData().toString(), QStringLiteral("debug"));
        QCOMPARE(hpc.calls(), 1);
        // This machine: no slurm section.
        selectData(runOn, QStringLiteral("local"));
        settle(d);
        QVERIFY(!partition->isVisible());
        const Json spec = parsed(d.spec());
        QVERIFY(!spec.contains("slurm") && !spec.contains("cluster"));
    }

    // Clone and edit keeps the spec's partition and the rest of its slurm section; a partition
    // the cluster lacks stays, marked; a slurm section off Slurm is named under Run on.
    void checkPartitionOfASpec(LaunchDialog& d) {
        auto* partition = field<QComboBox>(d, "slurmPartition");
        QVERIFY(d.setSpec(QStringLiteral(R"({"entry_point": "builtin:mlp", "cluster": "hpc",
            "slurm": {"partition": "long", "time_limit": 30}})")));
        settle(d);
        QCOMPARE(partition->currentData().toString(), QStringLiteral("long"));
        JSON_COMPARE(parsed(d.spec())["slurm"], Json({{"partition", "long"}, {"time_limit", 30}}));
        // A partition the cluster lacks stays, marked, for the engine to name.
        QVERIFY(d.setSpec(QStringLiteral(
            R"({"entry_point": "builtin:mlp", "cluster": "hpc", "slurm": {"partition": "gone"}})")));
        settle(d);
        QCOMPARE(partition->currentData().toString(), QStringLiteral("gone"));
        QCOMPARE(partition->currentText(), QStringLiteral("gone  ·  not on this cluster"));
        JSON_COMPARE(parsed(d.spec())["slurm"]["partition"], "gone");

        // A slurm section off Slurm is named under Run on.
        QVERIFY(d.setSpec(QStringLiteral(
            R"({"entry_point": "builtin:mlp", "cluster": "ssh-lab", "slurm": {"qos": "high"}})")));
        settle(d);
        QCOMPARE(d.problems(), QStringList{QStringLiteral(
                                   "slurm: only a job on a Slurm cluster has a slurm section "
                                   "(cluster ssh-lab is not one)")});
        QCOMPARE(field<QLabel>(d, "runOnMessage")->text(),
                 QStringLiteral("only a job on a Slurm cluster has a slurm section (cluster "
                                "ssh-lab is not one)"));
        QVERIFY(!field<QPushButton>(d, "runButton")->isEnabled());
    }

private Q_SLOTS:
    void partitionsOfASlurmCluster() {
        auto hpc = std::make_shared<HeldPartitions>(std::vector<PartitionChoice>{
            {QStringLiteral("debug"), QStringLiteral("UP"), true, 2, 16},
            {QStringLiteral("gpu"), QStringLiteral("UP"), false, 4, 256},
            {QStringLiteral("long"), QStringLiteral("DRAIN"), false, 1, 64}});
        auto lab = std::make_shared<HeldPartitions>(std::vector<PartitionChoice>{
            {QStringLiteral("cpu"), QStringLiteral("UP"), true, 8, 512},
            {QStringLiteral("a100"), QStringLiteral("UP"), false, 2, 128}});
        LaunchDialog d;
        d.setClusters({{QStringLiteral("ssh-lab"), 2},
                       slurmChoice(QStringLiteral("hpc"), {}, hpc),
                       slurmChoice(QStringLiteral("lab"), QStringLiteral("a100"), lab)});
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        d.showSection(kComputeSection);
        auto* runOn = field<QComboBox>(d, "runOn");
        QVERIFY(!field<QComboBox>(d, "slurmPartition")->isVisible()); // this machine: none
        QCOMPARE(runOn->itemText(runOn->findData(QStringLiteral("hpc"))),
                 QStringLiteral("hpc  ·  Slurm"));
        checkLoadingThenAnswer(d, *hpc);
        checkOtherClusterAndBack(d, *hpc, *lab);
        checkPartitionOfASpec(d);
    }

    // slurmrestd is not there (a loopback port nobody listens on): the real fetcher's error
    // names the cluster, the job can still be run with the cluster's default partition.
    void unreachableSlurmCluster() {
        int fd = -1;
        const int port = refusedPort(fd);
        QVERIFY(port > 0);
        const auto closePort = qScopeGuard([fd] { ::close(fd); });
        qputenv("STUDIO_TEST_SLURM_JWT", "header.payload.signature");
        remote::ClusterConfig offline;
        offline.name = "offline";
        offline.kind = "slurm";
        offline.slurm.url = "http://127.0.0.1:" + std::to_string(port);
        offline.slurm.tokenEnv = "STUDIO_TEST_SLURM_JWT";
        offline.slurm.partition = "batch";
        offline.workdir = "/tmp";
        const ClusterChoice choice = widgets::clusterChoiceOf(offline);
        QVERIFY(choice.slurm);
        QCOMPARE(choice.partition, QStringLiteral("batch"));

        LaunchDialog d;
        d.setClusters({choice});
        d.show();
        QVERIFY(QTest::qWaitForWindowExposed(&d));
        d.showSection(kComputeSection);
        auto* partition = field<QComboBox>(d, "slurmPartition");
        auto* status = field<QLabel>(d, "slurmPartitionStatus");
        // The answer arrives through the event loop: right after choosing, the dialog still says
        // it is loading (it did not wait for the cluster to fail).
        selectData(field<QComboBox>(d, "runOn"), QStringLiteral("offline"));
        QCOMPARE(status->text(), QStringLiteral("Loading the partitions of cluster offline…"));
        QTRY_VERIFY_WITH_TIMEOUT(status->text().startsWith(QStringLiteral("Cannot list")), 15000);
        QVERIFY2(status->text().contains(QStringLiteral("cluster offline")),
                 qPrintable(status->text()));
        QVERIFY(status->isVisible());
        QCOMPARE(partition->count(), 1);
        QCOMPARE(partition->currentText(), QStringLiteral("batch  ·  the cluster's default"));
        QCOMPARE(partition->currentData().toString(), QString());
        settle(d);
        QVERIFY2(d.problemCount() == 0, qPrintable(d.problems().join(QLatin1Char('\n'))));
        QVERIFY(field<QPushButton>(d, "runButton")->isEnabled());
        const Json spec = parsed(d.spec());
        JSON_COMPARE(spec["cluster"], "offline");
        QVERIFY(!spec.contains("slurm")); // the engine takes the cluster's partition
        shoot(&d, "launch-slurm-unreachable.png");
        qunsetenv("STUDIO_TEST_SLURM_JWT");
    }
};

QTEST_MAIN(TestLaunchPartitions)
#include "test_launch_partitions.moc"
