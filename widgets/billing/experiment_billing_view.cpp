#include "widgets/billing/experiment_billing_view.h"

#include "models/data/data_service.h"
#include "widgets/common/theme.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableView>
#include <QVBoxLayout>

namespace studio::widgets {

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
    m_model = new models::ExperimentBillingModel(this);
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
        [this](std::vector<models::JobBillingRow> rows) {
            m_model->setRows(std::move(rows));
            m_table->resizeColumnsToContents();
            const models::ExperimentBillingTotals t = models::totalsOf(m_model->rows());
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
