#include "widgets/launch/partition_picker.h"

#include "widgets/common/theme.h"

#include <QComboBox>
#include <QLabel>
#include <QSignalBlocker>

namespace studio::widgets {

namespace {

// "gpu  ·  4 nodes, 256 CPUs  ·  default", with the state when the partition is not UP.
QString describe(const PartitionChoice& p) {
    QString text = p.name + QStringLiteral("  ·  ") +
                   (p.nodes == 1 ? PartitionPicker::tr("1 node")
                                 : PartitionPicker::tr("%1 nodes").arg(p.nodes)) +
                   QStringLiteral(", ") + PartitionPicker::tr("%1 CPUs").arg(p.cpus);
    if (p.isDefault)
        text += QStringLiteral("  ·  ") + PartitionPicker::tr("Slurm's default");
    if (!p.state.isEmpty() && p.state != QLatin1String("UP"))
        text += QStringLiteral("  ·  ") + p.state;
    return text;
}

// The one item while there is no list. The spec then names no partition, so the engine takes
// the cluster's default one, or else Slurm's.
QString withoutList(const ClusterChoice& c, bool loading) {
    if (loading)
        return PartitionPicker::tr("loading…");
    if (c.partition.isEmpty())
        return PartitionPicker::tr("Slurm's default partition");
    return PartitionPicker::tr("%1  ·  the cluster's default").arg(c.partition);
}

} // namespace

PartitionPicker::PartitionPicker(QObject* parent)
    : QObject(parent) {
    // Parentless until the form takes them; the form's cell owns them from then on.
    m_combo = new QComboBox;
    m_combo->setObjectName(QStringLiteral("slurmPartition"));
    m_status = new QLabel;
    m_status->setObjectName(QStringLiteral("slurmPartitionStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_status->hide();
}

void PartitionPicker::setCluster(const std::optional<ClusterChoice>& cluster) {
    const bool slurm = cluster && cluster->slurm;
    const QString name = slurm ? cluster->name : QString();
    if (slurm && m_cluster && m_cluster->name == name)
        return;
    if (m_cluster && m_cluster->name != name)
        m_wanted.clear(); // the spec's partition was one of the cluster it named
    m_cluster = slurm ? cluster : std::nullopt;
    m_task.cancel();
    m_partitions.clear();
    m_error.clear();
    m_loading = false;
    if (m_cluster)
        fetch();
    rebuild();
}

void PartitionPicker::setWanted(const QString& partition) {
    m_wanted = partition;
    rebuild();
}

QString PartitionPicker::partition() const {
    return m_combo->currentData().toString();
}

void PartitionPicker::fetch() {
    if (const auto it = m_listed.constFind(m_cluster->name); it != m_listed.constEnd()) {
        m_partitions = *it;
        return;
    }
    if (!m_cluster->partitions) {
        m_error = tr("Studio cannot list the partitions of cluster %1.").arg(m_cluster->name);
        return;
    }
    m_loading = true;
    const QString name = m_cluster->name;
    m_task.run([fetcher = m_cluster->partitions](const models::CancelFlag&) { return fetcher(); },
               [this, name](std::vector<PartitionChoice> partitions) {
                   m_loading = false;
                   m_listed.insert(name, partitions);
                   m_partitions = std::move(partitions);
                   rebuild();
               },
               [this, name](const QString& error) {
                   m_loading = false;
                   // The fetcher's message names the cluster first ("cluster hpc: ..."); it
                   // is said once.
                   const QString prefix = QStringLiteral("cluster ") + name + QStringLiteral(": ");
                   m_error =
                       tr("Cannot list the partitions of cluster %1: %2")
                           .arg(name, error.startsWith(prefix) ? error.mid(prefix.size()) : error);
                   rebuild();
               });
}

void PartitionPicker::rebuild() {
    const QString before = partition();
    {
        const QSignalBlocker quiet(m_combo);
        m_combo->clear();
        QString select = m_wanted;
        for (const auto& p : m_partitions)
            m_combo->addItem(describe(p), p.name);
        if (select.isEmpty() && m_cluster) {
            select = m_cluster->partition;
            for (const auto& p : m_partitions)
                if (select.isEmpty() && p.isDefault)
                    select = p.name;
        }
        if (!m_wanted.isEmpty() && m_combo->findData(m_wanted) < 0)
            m_combo->addItem(m_partitions.empty() ? m_wanted
                                                  : tr("%1  ·  not on this cluster").arg(m_wanted),
                             m_wanted);
        if (m_combo->count() == 0 && m_cluster)
            m_combo->addItem(withoutList(*m_cluster, m_loading), QString());
        const int at = m_combo->findData(select);
        m_combo->setCurrentIndex(at >= 0 ? at : 0);
    }
    QString note;
    if (m_loading)
        note = tr("Loading the partitions of cluster %1…").arg(m_cluster->name);
    m_status->setText(m_error.isEmpty() ? note : m_error);
    QPalette palette = m_combo->palette();
    palette.setColor(QPalette::WindowText, m_error.isEmpty()
                                               ? palette.color(QPalette::PlaceholderText)
                                               : models::statusColor(QStringLiteral("Failed")));
    m_status->setPalette(palette);
    m_status->setVisible(!m_status->text().isEmpty());
    if (partition() != before)
        Q_EMIT partitionChanged();
}

} // namespace studio::widgets
