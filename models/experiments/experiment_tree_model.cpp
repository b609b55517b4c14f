#include "models/experiments/experiment_tree_model.h"

#include "engine/store/store_reader.h"
#include "models/common/status_style.h"
#include "models/data/data_service.h"

#include <QDateTime>
#include <QFont>
#include <QHash>
#include <QSet>
#include <QThread>

#include <algorithm>
#include <map>

namespace studio::models {

namespace {

const QString kUnassigned = QStringLiteral("Unassigned");

bool running(const QString& status) {
    return status == QLatin1String("InProgress") || status == QLatin1String("Stopping");
}

QString plural(int n, const char* one, const char* many) {
    return QString::number(n) + QLatin1Char(' ') + QLatin1String(n == 1 ? one : many);
}

} // namespace

struct ExperimentTreeModel::Node {
    NodeKind kind = NodeKind::Experiment;
    Node* parent = nullptr;
    int row = 0;
    QString name;
    QString experiment; // the experiment a trial or component is in
    QString trial;      // the trial a component is in
    QString description;
    qint64 id = 0;
    QString status; // components: the job's; trials: running if any job runs, else the newest
    QString secondaryStatus;
    double created = 0, started = 0, ended = 0;
    int jobs = 0;
    int active = 0; // jobs still running under an experiment or trial
    std::vector<std::unique_ptr<Node>> children;

    QString key() const { return kind == NodeKind::Component ? QString::number(id) : name; }
    void renumber() {
        for (std::size_t i = 0; i < children.size(); ++i) {
            children[i]->row = static_cast<int>(i);
            children[i]->parent = this;
        }
    }
    // Whether what the views show of this node differs from other's.
    bool sameLook(const Node& o) const {
        return name == o.name && status == o.status && secondaryStatus == o.secondaryStatus &&
               jobs == o.jobs && active == o.active && children.size() == o.children.size() &&
               description == o.description && started == o.started && ended == o.ended;
    }
    void takeLook(const Node& o) {
        status = o.status;
        secondaryStatus = o.secondaryStatus;
        jobs = o.jobs;
        active = o.active;
        description = o.description;
        created = o.created;
        started = o.started;
        ended = o.ended;
    }
};

ExperimentTreeSnapshot loadExperimentTree(store::StoreReader& reader) {
    ExperimentTreeSnapshot out;
    std::map<std::string, std::size_t> experimentAt;
    std::map<std::pair<std::string, std::string>, std::pair<std::size_t, std::size_t>> trialAt;
    for (const auto& e : reader.experiments()) {
        experimentAt[e.name] = out.experiments.size();
        out.experiments.push_back(
            {QString::fromStdString(e.name), QString::fromStdString(e.description), e.created, {}});
    }
    for (const auto& t : reader.trials()) {
        auto it = experimentAt.find(t.experiment);
        if (it == experimentAt.end())
            continue;
        auto& trials = out.experiments[it->second].trials;
        trialAt[{t.experiment, t.name}] = {it->second, trials.size()};
        trials.push_back({QString::fromStdString(t.name), t.created, {}});
    }
    for (const auto& c : reader.components()) {
        auto it = trialAt.find({c.experiment, c.trial});
        if (it == trialAt.end())
            continue;
        out.experiments[it->second.first].trials[it->second.second].jobs.push_back(
            {c.id, QString::fromStdString(c.name), QString::fromStdString(c.status),
             QString::fromStdString(c.secondaryStatus), c.created, c.started, c.ended});
    }
    std::stable_partition(out.experiments.begin(), out.experiments.end(),
                          [](const ExperimentTreeExperiment& e) { return e.name != kUnassigned; });
    return out;
}

ExperimentTreeModel::ExperimentTreeModel(DataService* data, QObject* parent)
    : QAbstractItemModel(parent)
    , m_service(data)
    , m_root(std::make_unique<Node>())
    , m_task(this) {
}

ExperimentTreeModel::~ExperimentTreeModel() = default;

ExperimentTreeModel::Node* ExperimentTreeModel::nodeOf(const QModelIndex& index) const {
    return index.isValid() ? static_cast<Node*>(index.internalPointer()) : m_root.get();
}

QModelIndex ExperimentTreeModel::indexOf(const Node* node, int column) const {
    if (!node || node == m_root.get())
        return {};
    return createIndex(node->row, column, const_cast<Node*>(node));
}

QModelIndex ExperimentTreeModel::index(int row, int column, const QModelIndex& parent) const {
    if (row < 0 || column < 0 || column >= ColumnCount)
        return {};
    if (parent.isValid() && parent.column() != 0)
        return {};
    const Node* p = nodeOf(parent);
    if (static_cast<std::size_t>(row) >= p->children.size())
        return {};
    return createIndex(row, column, p->children[static_cast<std::size_t>(row)].get());
}

QModelIndex ExperimentTreeModel::parent(const QModelIndex& child) const {
    if (!child.isValid())
        return {};
    return indexOf(nodeOf(child)->parent);
}

int ExperimentTreeModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0)
        return 0;
    return static_cast<int>(nodeOf(parent)->children.size());
}

int ExperimentTreeModel::columnCount(const QModelIndex&) const {
    return ColumnCount;
}

Qt::ItemFlags ExperimentTreeModel::flags(const QModelIndex& index) const {
    if (!index.isValid())
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (nodeOf(index)->kind == NodeKind::Component)
        f |= Qt::ItemNeverHasChildren;
    return f;
}

QVariant ExperimentTreeModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    if (section == NameColumn)
        return QStringLiteral("Name");
    if (section == StatusColumn)
        return QStringLiteral("Status");
    return {};
}

QVariant ExperimentTreeModel::displayText(const Node& n, int column, int trials) {
    if (column == StatusColumn) {
        if (n.kind == NodeKind::Experiment)
            return n.active ? QString::number(n.active) + QStringLiteral(" running") : QString();
        return n.status;
    }
    switch (n.kind) {
    case NodeKind::Experiment:
        return QString(n.name + QStringLiteral("  (") + plural(trials, "trial", "trials") +
                       QStringLiteral(", ") + plural(n.jobs, "job", "jobs") + QLatin1Char(')'));
    case NodeKind::Trial:
        return QString(n.name + QStringLiteral("  (") + plural(n.jobs, "job", "jobs") +
                       QLatin1Char(')'));
    case NodeKind::Component:
        return n.name;
    }
    return {};
}

QString ExperimentTreeModel::toolTip(const Node& n, int trials) {
    switch (n.kind) {
    case NodeKind::Experiment:
        return QString(
            n.name +
            (n.description.isEmpty() ? QString() : QString(QLatin1Char('\n') + n.description)) +
            QLatin1Char('\n') + plural(trials, "trial", "trials") + QStringLiteral(", ") +
            plural(n.jobs, "job", "jobs"));
    case NodeKind::Trial:
        return QString(n.experiment + QStringLiteral(" › ") + n.name + QLatin1Char('\n') +
                       plural(n.jobs, "job", "jobs"));
    case NodeKind::Component: {
        QString tip = n.name + QLatin1Char('\n') + n.status;
        if (!n.secondaryStatus.isEmpty())
            tip += QStringLiteral(" (") + n.secondaryStatus + QLatin1Char(')');
        tip += QStringLiteral("\nCreated ") + formatTime(n.created);
        if (n.started > 0) {
            const double end =
                n.ended > 0 ? n.ended
                            : static_cast<double>(QDateTime::currentMSecsSinceEpoch()) / 1000.0;
            tip += QStringLiteral("\nDuration ") + formatDuration(end - n.started);
        }
        return tip;
    }
    }
    return {};
}

QVariant ExperimentTreeModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid())
        return {};
    const Node& n = *nodeOf(index);
    const int trials = n.kind == NodeKind::Experiment ? static_cast<int>(n.children.size()) : 0;
    switch (role) {
    case Qt::DisplayRole:
        return displayText(n, index.column(), trials);
    case Qt::DecorationRole:
        if (index.column() != NameColumn)
            return {};
        if (n.kind == NodeKind::Experiment)
            return m_folderIcon.isNull() ? QVariant() : QVariant(m_folderIcon);
        return n.status.isEmpty() ? QVariant() : QVariant(statusIcon(n.status));
    case Qt::FontRole:
        if (n.kind == NodeKind::Experiment && n.name == kUnassigned) {
            QFont f;
            f.setItalic(true);
            return f;
        }
        return {};
    case Qt::ToolTipRole:
        return toolTip(n, trials);
    case KindRole:
        return static_cast<int>(n.kind);
    case NameRole:
        return n.name;
    case ComponentIdRole:
        return n.kind == NodeKind::Component ? QVariant(n.id) : QVariant();
    case ExperimentRole:
        return n.kind == NodeKind::Experiment ? n.name : n.experiment;
    case TrialRole:
        if (n.kind == NodeKind::Experiment)
            return {};
        return n.kind == NodeKind::Trial ? n.name : n.trial;
    case StatusRole:
        return n.status;
    case JobCountRole:
        return n.kind == NodeKind::Component ? 1 : n.jobs;
    case TrialCountRole:
        return n.kind == NodeKind::Experiment ? QVariant(trials) : QVariant();
    default:
        return {};
    }
}

std::unique_ptr<ExperimentTreeModel::Node>
ExperimentTreeModel::buildTree(const ExperimentTreeSnapshot& snapshot) {
    auto fresh = std::make_unique<Node>();
    for (const auto& e : snapshot.experiments) {
        auto en = std::make_unique<Node>();
        en->kind = NodeKind::Experiment;
        en->name = e.name;
        en->description = e.description;
        en->created = e.created;
        for (const auto& t : e.trials) {
            auto tn = std::make_unique<Node>();
            tn->kind = NodeKind::Trial;
            tn->name = t.name;
            tn->experiment = e.name;
            tn->created = t.created;
            int active = 0;
            for (const auto& j : t.jobs) {
                auto jn = std::make_unique<Node>();
                jn->kind = NodeKind::Component;
                jn->id = j.id;
                jn->name = j.name;
                jn->experiment = e.name;
                jn->trial = t.name;
                jn->status = j.status;
                jn->secondaryStatus = j.secondaryStatus;
                jn->created = j.created;
                jn->started = j.started;
                jn->ended = j.ended;
                active += running(j.status) ? 1 : 0;
                tn->children.push_back(std::move(jn));
            }
            tn->jobs = static_cast<int>(t.jobs.size());
            tn->active = active;
            if (!t.jobs.empty())
                tn->status = active ? QStringLiteral("InProgress") : t.jobs.back().status;
            tn->renumber();
            en->jobs += tn->jobs;
            en->active += active;
            en->children.push_back(std::move(tn));
        }
        en->renumber();
        fresh->children.push_back(std::move(en));
    }
    fresh->renumber();
    return fresh;
}

void ExperimentTreeModel::setSnapshot(const ExperimentTreeSnapshot& snapshot) {
    Q_ASSERT(QThread::currentThread() == thread());
    auto fresh = buildTree(snapshot);
    if (!sync(m_root.get(), *fresh, {})) {
        // sync() moved parts of fresh into the tree before it gave up: build it again.
        beginResetModel();
        m_root = buildTree(snapshot);
        endResetModel();
    }
}

// Makes old's children look like fresh's with row removals, insertions and dataChanged; false
// when surviving rows changed order (the caller then resets).
bool ExperimentTreeModel::sync(Node* old, Node& fresh, const QModelIndex& parentIndex) {
    QHash<QString, int> freshAt;
    for (std::size_t i = 0; i < fresh.children.size(); ++i)
        freshAt.insert(fresh.children[i]->key(), static_cast<int>(i));

    // Removals, in runs from the end.
    for (int i = static_cast<int>(old->children.size()) - 1; i >= 0; --i) {
        if (freshAt.contains(old->children[static_cast<std::size_t>(i)]->key()))
            continue;
        int first = i;
        while (first > 0 &&
               !freshAt.contains(old->children[static_cast<std::size_t>(first - 1)]->key()))
            --first;
        beginRemoveRows(parentIndex, first, i);
        old->children.erase(old->children.begin() + first, old->children.begin() + i + 1);
        old->renumber();
        endRemoveRows();
        i = first;
    }
    // Survivors must keep their order.
    int last = -1;
    for (const auto& c : old->children) {
        const int at = freshAt.value(c->key());
        if (at < last)
            return false;
        last = at;
    }
    // Insertions and updates, walking fresh.
    for (std::size_t i = 0; i < fresh.children.size(); ++i) {
        Node& f = *fresh.children[i];
        if (i < old->children.size() && old->children[i]->key() == f.key()) {
            Node* o = old->children[i].get();
            const bool changed = !o->sameLook(f);
            o->takeLook(f);
            if (!sync(o, f, indexOf(o, 0)))
                return false;
            if (changed)
                Q_EMIT dataChanged(indexOf(o, 0), indexOf(o, ColumnCount - 1));
            continue;
        }
        std::size_t end = i + 1;
        const bool oldLeft = i < old->children.size();
        const QString nextOld = oldLeft ? old->children[i]->key() : QString();
        while (end < fresh.children.size() && (!oldLeft || fresh.children[end]->key() != nextOld))
            ++end;
        beginInsertRows(parentIndex, static_cast<int>(i), static_cast<int>(end) - 1);
        for (std::size_t k = i; k < end; ++k)
            old->children.insert(old->children.begin() + static_cast<std::ptrdiff_t>(k),
                                 std::move(fresh.children[k]));
        old->renumber();
        endInsertRows();
        i = end - 1;
    }
    return true;
}

QModelIndex ExperimentTreeModel::experimentIndex(const QString& experiment) const {
    for (const auto& e : m_root->children)
        if (e->name == experiment)
            return indexOf(e.get());
    return {};
}

QModelIndex ExperimentTreeModel::trialIndex(const QString& experiment, const QString& trial) const {
    const QModelIndex e = experimentIndex(experiment);
    if (!e.isValid())
        return {};
    for (const auto& t : nodeOf(e)->children)
        if (t->name == trial)
            return indexOf(t.get());
    return {};
}

QModelIndex ExperimentTreeModel::componentIndex(qint64 componentId) const {
    for (const auto& e : m_root->children)
        for (const auto& t : e->children)
            for (const auto& j : t->children)
                if (j->id == componentId)
                    return indexOf(j.get());
    return {};
}

void ExperimentTreeModel::refresh() {
    if (!m_service)
        return;
    m_loading = true;
    m_service->experimentTree(
        m_task,
        [this](ExperimentTreeSnapshot snapshot) {
            m_loading = false;
            setSnapshot(snapshot);
            Q_EMIT loaded();
        },
        [this](const QString& message) {
            m_loading = false;
            Q_EMIT loadFailed(message);
        });
}

} // namespace studio::models
