#include "widgets/billing/experiment_billing_view.h"

#include "models/data/data_service.h"
#include "widgets/common/theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QString money(const std::optional<double>& usd) {
    return usd ? QStringLiteral("$%1").arg(*usd, 0, 'f', 2) : QStringLiteral("-");
}

} // namespace

void ExperimentBillingModel::setRows(std::vector<JobBillingRow> rows) {
    beginResetModel();
    m_rows = std::move(rows);
    endResetModel();
}

int ExperimentBillingModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ExperimentBillingModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExperimentBillingModel::data(const QModelIndex& index, int role) const {
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const JobBillingRow& r = m_rows[static_cast<std::size_t>(index.row())];
    const auto& s = r.summary;
    if (role == Qt::TextAlignmentRole)
        return index.column() >= TrainingColumn
                   ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter)
                   : QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    if (role == Qt::DecorationRole && index.column() == StatusColumn)
        return models::statusIcon(r.status);
    if (role != Qt::DisplayRole)
        return {};
    switch (index.column()) {
    case JobColumn:
        return r.job;
    case StatusColumn:
        return r.status;
    case InstanceColumn:
        return QString(r.instance + (r.spot ? tr(" (spot)") : QString()));
    case TrainingColumn:
        return models::formatDuration(s.trainingTimeSeconds);
    case BillableColumn:
        return models::formatDuration(s.billableTimeSeconds);
    case SavingsColumn:
        return QStringLiteral("%1%").arg(s.savingsPercent, 0, 'f', 1);
    case SpotCostColumn:
        return money(s.spotCostUsd);
    case OnDemandCostColumn:
        return money(s.onDemandCostUsd);
    case InterruptionsColumn:
        return s.interruptions;
    case LostStepsColumn:
        return static_cast<qlonglong>(s.lostSteps);
    default:
        return {};
    }
}

QVariant ExperimentBillingModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    const QString titles[] = {
        tr("Job"),     tr("Status"),    tr("Instance"),  tr("Training time"), tr("Billable"),
        tr("Savings"), tr("Spot cost"), tr("On demand"), tr("Interruptions"), tr("Lost steps")};
    return section >= 0 && section < ColumnCount ? titles[section] : QVariant();
}

ExperimentBillingTotals totalsOf(const std::vector<JobBillingRow>& rows) {
    ExperimentBillingTotals t;
    for (const auto& r : rows) {
        t.trainingTimeSeconds += r.summary.trainingTimeSeconds;
        t.billableTimeSeconds += r.summary.billableTimeSeconds;
        t.interruptions += r.summary.interruptions;
        if (r.summary.spotCostUsd && r.summary.onDemandCostUsd) {
            t.spotCostUsd += r.spot ? *r.summary.spotCostUsd : *r.summary.onDemandCostUsd;
            t.onDemandCostUsd += *r.summary.onDemandCostUsd;
            ++t.pricedJobs;
        }
    }
    t.savingsPercent = t.trainingTimeSeconds > 0
                           ? (1.0 - t.billableTimeSeconds / t.trainingTimeSeconds) * 100.0
                           : 0.0;
    return t;
}

ExperimentBillingView::ExperimentBillingView(models::DataService* service, QString experiment,
                                             QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_experiment(std::move(experiment)) {
    setObjectName(QStringLiteral("experimentBilling"));
    m_summary = new QLabel(tr("Loading…"), this);
    m_summary->setObjectName(QStringLiteral("experimentBillingSummary"));
    m_summary->setWordWrap(true);
    QFont f = m_summary->font();
    f.setPointSizeF(f.pointSizeF() * 1.15);
    m_summary->setFont(f);
    m_model = new ExperimentBillingModel(this);
    m_table = new QTableView(this);
    m_table->setModel(m_model);
    m_table->verticalHeader()->hide();
    m_table->setAlternatingRowColors(true);
    m_table->setShowGrid(false);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->horizontalHeader()->setStretchLastSection(true);
    connect(m_table, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
        Q_EMIT openJobRequested(m_model->rows()[static_cast<std::size_t>(index.row())].job);
    });
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(8, 8, 8, 8);
    v->addWidget(m_summary);
    v->addWidget(m_table, 1);
    reload();
}

void ExperimentBillingView::reload() {
    m_service->experimentBilling(
        m_task, m_experiment,
        [this](std::vector<JobBillingRow> rows) {
            m_model->setRows(std::move(rows));
            m_table->resizeColumnsToContents();
            const ExperimentBillingTotals t = totalsOf(m_model->rows());
            m_summary->setText(
                t.pricedJobs > 0
                    ? tr("<b>%1</b>: %2 jobs, %3 of training billed as %4. Spot saved "
                         "<b>%5%</b>: $%6 instead of $%7 on demand (%8 interruptions).")
                          .arg(m_experiment.toHtmlEscaped())
                          .arg(m_model->rowCount())
                          .arg(models::formatDuration(t.trainingTimeSeconds),
                               models::formatDuration(t.billableTimeSeconds))
                          .arg(t.savingsPercent, 0, 'f', 1)
                          .arg(t.spotCostUsd, 0, 'f', 2)
                          .arg(t.onDemandCostUsd, 0, 'f', 2)
                          .arg(t.interruptions)
                    : tr("<b>%1</b>: %2 jobs; none is priced (instance type not in the catalog "
                         "and no local_prices).")
                          .arg(m_experiment.toHtmlEscaped())
                          .arg(m_model->rowCount()));
            m_loaded = true;
            Q_EMIT dataLoaded();
        },
        [this](const QString& error) {
            m_summary->setText(error);
            m_loaded = true;
            Q_EMIT dataLoaded();
        });
}

QString ExperimentBillingView::summaryText() const {
    return m_summary->text();
}

} // namespace studio::widgets
