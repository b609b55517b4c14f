#include "widgets/launch/resources_section.h"

#include "engine/spot/instance_catalog.h"
#include "widgets/launch/partition_picker.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <functional>

namespace studio::widgets {
namespace {

const char* const kMp = "/distribution/smdistributed/modelparallel";
const std::string kParams = std::string(kMp) + "/parameters";

QSpinBox* spin(const QString& objectName, int min, int max) {
    auto* s = new QSpinBox;
    s->setObjectName(objectName);
    s->setRange(min, max);
    s->setMaximumWidth(140);
    s->setAccelerated(true);
    return s;
}

QComboBox* combo(const QString& objectName, const QList<std::pair<QString, QString>>& items) {
    auto* c = new QComboBox;
    c->setObjectName(objectName);
    for (const auto& [text, data] : items)
        c->addItem(text, data);
    return c;
}

bool enabledAt(const models::SpecDocument& doc, std::string_view pointer) {
    const models::SpecDocument* v = models::findAt(doc, std::string(pointer) + "/enabled");
    return v && v->is_boolean() && v->get<bool>();
}

// Selects the item whose data is value, adding one for a value the combo does not offer.
void selectData(QComboBox* c, const QString& value) {
    if (c->findData(value) < 0)
        c->addItem(value, value);
    c->setCurrentIndex(c->findData(value));
}

// "local" and the catalog's instance types with their vCPUs, memory and GPUs.
void addInstanceTypes(QComboBox* c) {
    c->addItem(ResourcesSection::tr("local (this machine)"), QStringLiteral("local"));
    try {
        for (const auto& t : spot::InstanceCatalog::shipped().all()) {
            const QString name = QString::fromStdString(t.name);
            if (name == QLatin1String("local"))
                continue;
            QString text =
                name + QStringLiteral("  ·  %1 vCPU, %2 GiB").arg(t.vcpus).arg(t.memoryGiB);
            if (t.gpus > 0)
                text += QStringLiteral(", %1 × %2").arg(t.gpus).arg(QString::fromStdString(t.gpu));
            c->addItem(text, name);
        }
    } catch (const std::exception&) {
        // No catalog: "local" only; the validator names the missing file.
    }
}

std::pair<std::function<models::SpecDocument()>, std::function<void(const models::SpecDocument&)>>
intField(QSpinBox* s) {
    return {[s] { return models::SpecDocument(s->value()); },
            [s](const models::SpecDocument& v) {
                s->setValue(v.is_number_integer() ? v.get<int>() : s->minimum());
            }};
}

std::pair<std::function<models::SpecDocument()>, std::function<void(const models::SpecDocument&)>>
comboField(QComboBox* c, const QString& fallback) {
    return {[c] { return models::SpecDocument(c->currentData().toString().toStdString()); },
            [c, fallback](const models::SpecDocument& v) {
                selectData(c, v.is_string() ? models::valueText(v) : fallback);
            }};
}

} // namespace

ResourcesSection::ResourcesSection(QWidget* parent)
    : SpecSection(tr("Compute"),
                  tr("The job runs on instance count nodes × processes per node ranks. On this "
                     "machine each node is its own studio-launcher, so multi-node runs work "
                     "locally too; on a cluster, node i runs on its i-th host."),
                  parent) {
    buildResources();
    buildDistribution();
    buildPipeline();
    m_layout = hintLabel(QString());
    m_layout->setObjectName(QStringLiteral("parallelLayout"));
    m_distributionForm->addRow(QString(), m_layout);
    body()->addStretch(1);

    watchFields();
    bindResources();
    bindDistribution();
    bindPipeline();
    updateLayout();
}

// Where the job runs and how many ranks it has.
void ResourcesSection::buildResources() {
    QFormLayout* res = addGroup(tr("Resources"));
    m_resourcesForm = res;
    m_cluster = new QComboBox;
    m_cluster->setObjectName(QStringLiteral("runOn"));
    m_cluster->addItem(tr("local (this machine)"), QStringLiteral("local"));
    FieldMessage* runOnMessage = addField(
        res, tr("Run on"), m_cluster, QStringLiteral("cluster"),
        tr("This machine, the SSH hosts of a cluster, or a Slurm cluster (the Clusters page "
           "defines them)."));
    // The slurm section's other keys have no field; their problems show here.
    alsoShow(runOnMessage, QStringLiteral("slurm"));
    m_partition = new PartitionPicker(this);
    addField(res, tr("Partition"), m_partition->combo(), QStringLiteral("slurm.partition"),
             tr("Where Slurm runs the job (slurm.partition), as the cluster's slurmrestd lists "
                "them."));
    // "Loading…" or why the list failed, right under the combo box (fieldCell() lays the cell
    // out in a QVBoxLayout).
    static_cast<QVBoxLayout*>(m_partition->combo()->parentWidget()->layout())
        ->insertWidget(1, m_partition->status());
    m_instanceCount = spin(QStringLiteral("instanceCount"), 1, 256);
    m_processesPerHost = spin(QStringLiteral("processesPerHost"), 1, 256);
    m_instanceType = new QComboBox;
    m_instanceType->setObjectName(QStringLiteral("instanceType"));
    addInstanceTypes(m_instanceType);
    m_worldSize = new QLabel;
    m_worldSize->setObjectName(QStringLiteral("worldSize"));
    addField(res, tr("Instance count"), m_instanceCount, QStringLiteral("instance_count"),
             tr("Nodes; each runs its own studio-launcher, on a cluster's host of its own."));
    FieldMessage* ppnMessage =
        addField(res, tr("Processes per node"), m_processesPerHost,
                 QStringLiteral("distribution.mpi.processes_per_host"),
                 tr("Ranks on each node (distribution.mpi.processes_per_host)."));
    alsoShow(ppnMessage, QStringLiteral("distribution.mpi"));
    res->addRow(tr("World size"), m_worldSize);
    FieldMessage* typeMessage =
        addField(res, tr("Instance type"), m_instanceType, QStringLiteral("instance_type"),
                 tr("Used for pricing and spot savings; Run on says where the job runs."));
    alsoShow(typeMessage, QStringLiteral("local_prices"));
}

void ResourcesSection::buildDistribution() {
    m_distributionForm =
        addGroup(tr("Distribution"), tr("Exactly one strategy; data parallel splits each batch "
                                        "among the ranks, a pipeline cuts the model into stages."));
    m_strategy = combo(QStringLiteral("distributionStrategy"),
                       {{tr("None"), QStringLiteral("none")},
                        {tr("Data parallel"), QStringLiteral("data")},
                        {tr("Pipeline parallel"), QStringLiteral("pipeline")},
                        {tr("Hybrid: pipeline × data parallel"), QStringLiteral("hybrid")}});
    m_backend =
        combo(QStringLiteral("dataParallelBackend"),
              {{tr("PyTorch DDP (pytorchddp)"), QStringLiteral("pytorchddp")},
               {tr("torchrun (torch_distributed)"), QStringLiteral("torch_distributed")},
               {tr("SageMaker data parallel (smdistributed)"), QStringLiteral("smdistributed")}});
    FieldMessage* strategyMessage =
        addField(m_distributionForm, tr("Strategy"), m_strategy, QStringLiteral("distribution"));
    alsoShow(strategyMessage,
             QStringLiteral("distribution.smdistributed.modelparallel.parameters.ddp"));
    addField(m_distributionForm, tr("Launcher"), m_backend, QString(),
             tr("All three give every rank torchrun's environment."));
}

void ResourcesSection::buildPipeline() {
    QWidget* pipeBox = nullptr;
    m_pipelineForm = addGroup(tr("Pipeline"),
                              tr("smdistributed.modelparallel: the model's blocks are cut into "
                                 "partitions stages; each batch is split into microbatches."),
                              &pipeBox);
    m_pipelineBox = pipeBox;
    const QString mp = QStringLiteral("distribution.smdistributed.modelparallel.parameters.");
    m_partitions = spin(QStringLiteral("partitions"), 1, 256);
    m_microbatches = spin(QStringLiteral("microbatches"), 1, 4096);
    m_schedule = combo(QStringLiteral("pipelineSchedule"),
                       {{tr("interleaved (1F1B)"), QStringLiteral("interleaved")},
                        {tr("simple (GPipe)"), QStringLiteral("simple")}});
    m_optimize = combo(QStringLiteral("optimize"), {{tr("memory"), QStringLiteral("memory")},
                                                    {tr("speed"), QStringLiteral("speed")}});
    m_placement =
        combo(QStringLiteral("placementStrategy"),
              {{tr("cluster: a replica's stages on adjacent ranks"), QStringLiteral("cluster")},
               {tr("spread: a stage's replicas on adjacent ranks"), QStringLiteral("spread")}});
    m_autoPartition = new QCheckBox(tr("Balance stages by measured cost (auto_partition)"));
    m_autoPartition->setObjectName(QStringLiteral("autoPartition"));
    FieldMessage* partitionsMessage =
        addField(m_pipelineForm, tr("Partitions"), m_partitions, mp + QStringLiteral("partitions"));
    alsoShow(partitionsMessage, mp + QStringLiteral("pipeline_parallel_degree"));
    alsoShow(partitionsMessage, QStringLiteral("distribution.smdistributed.modelparallel"));
    addField(m_pipelineForm, tr("Microbatches"), m_microbatches,
             mp + QStringLiteral("microbatches"));
    addField(m_pipelineForm, tr("Schedule"), m_schedule, mp + QStringLiteral("pipeline"));
    addField(m_pipelineForm, tr("Optimize for"), m_optimize, mp + QStringLiteral("optimize"));
    addField(m_pipelineForm, tr("Placement"), m_placement,
             mp + QStringLiteral("placement_strategy"));
    FieldMessage* autoMessage =
        addField(m_pipelineForm, QString(), m_autoPartition, mp + QStringLiteral("auto_partition"));
    alsoShow(autoMessage, mp + QStringLiteral("default_partition"));
}

void ResourcesSection::watchFields() {
    for (QSpinBox* s : {m_instanceCount, m_processesPerHost, m_partitions, m_microbatches})
        watch(s);
    for (QComboBox* c :
         {m_cluster, m_instanceType, m_strategy, m_backend, m_schedule, m_optimize, m_placement})
        watch(c);
    watch(m_autoPartition);
    watch(m_partition->combo());
    connect(m_partition, &PartitionPicker::partitionChanged, this, [this] { notifyChanged(); });
    connect(m_cluster, &QComboBox::currentIndexChanged, this, [this] {
        m_partition->setCluster(chosenCluster());
        updateLayout();
    });
    connect(this, &SpecSection::changed, this, &ResourcesSection::updateLayout);
    for (QComboBox* c : {m_strategy, m_backend})
        connect(c, &QComboBox::currentIndexChanged, this, &ResourcesSection::updateLayout);
}

void ResourcesSection::bindResources() {
    // "cluster" is omitted for this machine.
    auto [clusterRead, clusterShow] = comboField(m_cluster, QStringLiteral("local"));
    bind(models::SpecField("/cluster", clusterRead, clusterShow, "local")
             .apply([](models::SpecDocument& doc, const models::SpecDocument& v) {
                 if (v == "local")
                     models::eraseAt(doc, "/cluster");
                 else
                     models::putAt(doc, "/cluster", v);
             }));
    bindPartition();
    auto [countRead, countShow] = intField(m_instanceCount);
    bind(models::SpecField("/instance_count", countRead, countShow, 1));
    auto [typeRead, typeShow] = comboField(m_instanceType, QStringLiteral("local"));
    bind(models::SpecField("/instance_type", typeRead, typeShow, "local"));
}

void ResourcesSection::bindDistribution() {
    auto active = [this] {
        return pipelined();
    };
    // The strategy first: it adds and removes the dicts the fields below write into.
    bind(models::SpecField(
             "/distribution", [this] { return models::SpecDocument(strategy().toStdString()); },
             [this](const models::SpecDocument& v) { showStrategy(v); }, "none")
             .apply([this](models::SpecDocument& doc, const models::SpecDocument& v) {
                 applyStrategy(doc, QString::fromStdString(v.get<std::string>()));
             }));
    bind(models::SpecField(
             "/distribution/mpi/processes_per_host",
             [this] { return models::SpecDocument(m_processesPerHost->value()); },
             [this](const models::SpecDocument& v) {
                 m_processesPerHost->setValue(v.is_number_integer() ? v.get<int>() : 1);
             },
             1)
             .apply([this](models::SpecDocument& doc, const models::SpecDocument& v) {
                 if (v.get<int>() > 1 || pipelined()) {
                     models::putAt(doc, "/distribution/mpi/enabled", true);
                     models::putAt(doc, "/distribution/mpi/processes_per_host", v);
                     return;
                 }
                 models::eraseAt(doc, "/distribution/mpi/processes_per_host");
                 const models::SpecDocument* mpi = models::findAt(doc, "/distribution/mpi");
                 if (mpi && mpi->is_object() && mpi->size() == 1 && mpi->contains("enabled"))
                     models::eraseAt(doc, "/distribution/mpi");
             }));
    bind(models::SpecField(
             kParams + "/ddp",
             [this] { return models::SpecDocument(strategy() == QLatin1String("hybrid")); },
             [](const models::SpecDocument&) {}, false)
             .activeWhen(active));
}

void ResourcesSection::bindPipeline() {
    auto active = [this] {
        return pipelined();
    };
    // "partitions", or its alias "pipeline_parallel_degree" where the spec used that.
    bind(models::SpecField(
             kParams + "/partitions",
             [this] { return models::SpecDocument(m_partitions->value()); },
             [this](const models::SpecDocument& v) {
                 m_partitions->setValue(v.is_number_integer() ? v.get<int>() : 2);
             })
             .extract([](const models::SpecDocument& doc) {
                 models::SpecDocument v = models::valueAt(doc, kParams + "/partitions");
                 return v.is_null() ? models::valueAt(doc, kParams + "/pipeline_parallel_degree")
                                    : v;
             })
             .apply([](models::SpecDocument& doc, const models::SpecDocument& v) {
                 const bool alias = !models::findAt(doc, kParams + "/partitions") &&
                                    models::findAt(doc, kParams + "/pipeline_parallel_degree");
                 models::putAt(doc, kParams + (alias ? "/pipeline_parallel_degree" : "/partitions"),
                               v);
             })
             .activeWhen(active));
    auto [mbRead, mbShow] = intField(m_microbatches);
    bind(models::SpecField(kParams + "/microbatches", mbRead, mbShow, 1).activeWhen(active));
    auto [schedRead, schedShow] = comboField(m_schedule, QStringLiteral("interleaved"));
    bind(models::SpecField(kParams + "/pipeline", schedRead, schedShow, "interleaved")
             .activeWhen(active));
    auto [optRead, optShow] = comboField(m_optimize, QStringLiteral("memory"));
    bind(models::SpecField(kParams + "/optimize", optRead, optShow, "memory").activeWhen(active));
    auto [placeRead, placeShow] = comboField(m_placement, QStringLiteral("cluster"));
    bind(models::SpecField(kParams + "/placement_strategy", placeRead, placeShow, "cluster")
             .activeWhen(active));
    bind(models::SpecField(
             kParams + "/auto_partition",
             [this] { return models::SpecDocument(m_autoPartition->isChecked()); },
             [this](const models::SpecDocument& v) {
                 m_autoPartition->setChecked(v.is_boolean() ? v.get<bool>() : true);
             },
             true)
             .activeWhen(active));
}

// "slurm.partition", on a Slurm cluster only; the slurm section goes when nothing is left in it.
void ResourcesSection::bindPartition() {
    bind(models::SpecField(
             "/slurm/partition",
             [this] {
                 const QString p = m_partition->partition();
                 return p.isEmpty() ? models::SpecDocument()
                                    : models::SpecDocument(p.toStdString());
             },
             [this](const models::SpecDocument& v) {
                 m_partition->setWanted(v.is_null() ? QString() : models::valueText(v));
             })
             .apply([](models::SpecDocument& doc, const models::SpecDocument& v) {
                 if (!v.is_null()) {
                     models::putAt(doc, "/slurm/partition", v);
                     return;
                 }
                 models::eraseAt(doc, "/slurm/partition");
                 const models::SpecDocument* slurm = models::findAt(doc, "/slurm");
                 if (slurm && slurm->is_object() && slurm->empty())
                     models::eraseAt(doc, "/slurm");
             })
             .activeWhen([this] {
                 const auto c = chosenCluster();
                 return c && c->slurm;
             }));
}

std::optional<ClusterChoice> ResourcesSection::chosenCluster() const {
    const QString name = cluster();
    for (const auto& c : m_choices)
        if (c.name == name)
            return c;
    return std::nullopt;
}

QString ResourcesSection::strategy() const {
    const QString s = m_strategy->currentData().toString();
    return s == QLatin1String("data") ? s + QLatin1Char(':') + m_backend->currentData().toString()
                                      : s;
}

int ResourcesSection::worldSize() const {
    return m_instanceCount->value() * m_processesPerHost->value();
}

QString ResourcesSection::cluster() const {
    return m_cluster->currentData().toString();
}

void ResourcesSection::setClusters(const std::vector<ClusterChoice>& clusters) {
    const QString current = cluster();
    const QSignalBlocker quiet(m_cluster);
    while (m_cluster->count() > 1)
        m_cluster->removeItem(1);
    m_choices.clear();
    for (const auto& c : clusters) {
        if (c.name == QLatin1String("local"))
            continue;
        m_choices.push_back(c);
        m_cluster->addItem(c.slurm        ? tr("%1  ·  Slurm").arg(c.name)
                           : c.hosts == 1 ? tr("%1  ·  1 host").arg(c.name)
                                          : tr("%1  ·  %2 hosts").arg(c.name).arg(c.hosts),
                           c.name);
    }
    selectData(m_cluster, current);
    m_partition->setCluster(chosenCluster());
    updateLayout();
}

bool ResourcesSection::pipelined() const {
    const QString s = m_strategy->currentData().toString();
    return s == QLatin1String("pipeline") || s == QLatin1String("hybrid");
}

void ResourcesSection::showStrategy(const models::SpecDocument& d) {
    QString strategy = QStringLiteral("none");
    QString backend = QStringLiteral("pytorchddp");
    if (enabledAt(d, "/smdistributed/modelparallel")) {
        const models::SpecDocument ddp =
            models::valueAt(d, "/smdistributed/modelparallel/parameters/ddp");
        strategy = ddp.is_boolean() && ddp.get<bool>() ? QStringLiteral("hybrid")
                                                       : QStringLiteral("pipeline");
    } else {
        for (const char* b : {"pytorchddp", "torch_distributed", "smdistributed"}) {
            const std::string p =
                std::string("/") + b + (b == std::string("smdistributed") ? "/dataparallel" : "");
            if (enabledAt(d, p)) {
                strategy = QStringLiteral("data");
                backend = QString::fromLatin1(b);
                break;
            }
        }
    }
    m_strategy->setCurrentIndex(m_strategy->findData(strategy));
    m_backend->setCurrentIndex(m_backend->findData(backend));
    updateLayout();
}

void ResourcesSection::applyStrategy(models::SpecDocument& doc, const QString& strategy) const {
    for (const char* p : {"/distribution/torch_distributed", "/distribution/pytorchddp",
                          "/distribution/smdistributed/dataparallel"})
        models::eraseAt(doc, p);
    if (strategy == QLatin1String("pipeline") || strategy == QLatin1String("hybrid")) {
        models::putAt(doc, std::string(kMp) + "/enabled", true);
        if (!models::findAt(doc, kParams))
            models::putAt(doc, kParams, models::SpecDocument::object());
        models::putAt(doc, "/distribution/mpi/enabled", true);
        return;
    }
    models::eraseAt(doc, kMp);
    if (strategy.startsWith(QLatin1String("data:"))) {
        const QString backend = strategy.mid(5);
        const std::string p = backend == QLatin1String("smdistributed")
                                  ? "/distribution/smdistributed/dataparallel"
                                  : "/distribution/" + backend.toStdString();
        models::putAt(doc, p + "/enabled", true);
    }
}

void ResourcesSection::afterLoad(const models::SpecDocument&) {
    updateLayout();
}

void ResourcesSection::updateLayout() {
    const QString s = m_strategy->currentData().toString();
    const bool pipe = pipelined();
    m_distributionForm->setRowVisible(m_backend->parentWidget(), s == QLatin1String("data"));
    m_pipelineBox->setVisible(pipe);
    const auto chosen = chosenCluster();
    m_resourcesForm->setRowVisible(m_partition->combo()->parentWidget(), chosen && chosen->slurm);
    m_pipelineForm->setRowVisible(m_placement->parentWidget(), s == QLatin1String("hybrid"));
    const int nodes = m_instanceCount->value();
    const int ppn = m_processesPerHost->value();
    auto count = [](int n, const QString& one, const QString& many) {
        return n == 1 ? QString(QStringLiteral("1 ") + one)
                      : QString(QString::number(n) + QLatin1Char(' ') + many);
    };
    m_worldSize->setText(QStringLiteral("<b>%1</b> &nbsp;=&nbsp; %2 × %3")
                             .arg(count(worldSize(), tr("rank"), tr("ranks")),
                                  count(nodes, tr("node"), tr("nodes")),
                                  count(ppn, tr("process"), tr("processes"))));
    QString text;
    if (s == QLatin1String("none"))
        text = worldSize() > 1 ? tr("Each rank trains on its own; ranks still get RANK and "
                                    "WORLD_SIZE (mpi).")
                               : tr("One process.");
    else if (s == QLatin1String("data"))
        text = worldSize() == 1
                   ? tr("One replica: data parallelism starts paying off with more ranks.")
                   : tr("%1 data-parallel replicas; each step all-reduces the gradients.")
                         .arg(worldSize());
    else if (pipe) {
        const int parts = m_partitions->value();
        const int replicas = parts > 0 ? worldSize() / parts : 0;
        text = s == QLatin1String("hybrid")
                   ? tr("%1 stages × %2 data-parallel replicas.").arg(parts).arg(replicas)
                   : tr("%1 stages, one replica: the world size must equal the partitions.")
                         .arg(parts);
    }
    m_layout->setText(text);
}

} // namespace studio::widgets
