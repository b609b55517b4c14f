#include "widgets/billing/job_billing_view.h"

#include "models/billing/cost_curve.h"
#include "models/data/data_service.h"
#include "widgets/charts/curve_chart.h"
#include "widgets/charts/strip_view.h"
#include "widgets/common/theme.h"

#include <QFrame>
#include <QGridLayout>
#include <QLabel>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QString money(const std::optional<double>& usd) {
    return usd ? QStringLiteral("$%1").arg(*usd, 0, 'f', *usd < 10 ? 3 : 2) : QStringLiteral("-");
}

QWidget* card(const QString& title, const QString& value, const QString& note, QWidget* parent) {
    auto* frame = new QFrame(parent);
    frame->setFrameShape(QFrame::StyledPanel);
    frame->setObjectName(QStringLiteral("billingCard"));
    auto* v = new QVBoxLayout(frame);
    v->setContentsMargins(12, 8, 12, 8);
    auto* t = new QLabel(title.toUpper(), frame);
    QFont tf = t->font();
    tf.setPointSizeF(tf.pointSizeF() * 0.8);
    tf.setBold(true);
    t->setFont(tf);
    t->setForegroundRole(QPalette::PlaceholderText);
    auto* val = new QLabel(value, frame);
    QFont vf = val->font();
    vf.setPointSizeF(vf.pointSizeF() * 1.5);
    vf.setBold(true);
    val->setFont(vf);
    v->addWidget(t);
    v->addWidget(val);
    if (!note.isEmpty()) {
        auto* n = new QLabel(note, frame);
        n->setForegroundRole(QPalette::PlaceholderText);
        n->setWordWrap(true);
        v->addWidget(n);
    }
    return frame;
}

// The running and waiting segments as the strip shows them: running in blue (labelled with its
// attempt), waiting for capacity in amber, a red mark where an interruption ended a running one.
std::vector<models::StripItem> stripItems(const std::vector<store::BillingSegment>& segments) {
    const QColor running = models::statusColor(QStringLiteral("InProgress"));
    const QColor waiting = models::statusColor(QStringLiteral("Stopping"));
    const QColor interruption = models::statusColor(QStringLiteral("Failed"));
    std::vector<models::StripItem> items;
    for (const auto& s : models::layoutStrip(segments))
        items.push_back({s.x, s.width, s.running ? running : waiting,
                         s.running ? JobBillingView::tr("attempt %1").arg(s.attempt) : QString(),
                         s.interruptedBefore ? interruption : QColor()});
    return items;
}

} // namespace

JobBillingView::JobBillingView(models::DataService* service, QString job, QWidget* parent)
    : QWidget(parent)
    , m_service(service)
    , m_job(std::move(job)) {
    setObjectName(QStringLiteral("jobBilling"));
    m_headline = new QLabel(tr("Loading…"), this);
    m_headline->setObjectName(QStringLiteral("billingHeadline"));
    m_headline->setWordWrap(true);
    QFont hf = m_headline->font();
    hf.setPointSizeF(hf.pointSizeF() * 1.2);
    m_headline->setFont(hf);
    m_cards = new QGridLayout;
    m_cards->setSpacing(10);
    m_strip = new StripView(this);
    m_strip->setPlaceholder(tr("No billing segments yet: they are recorded as the job runs."));
    m_strip->setLegend(
        {{models::statusColor(QStringLiteral("InProgress")), tr("running (billed)")},
         {models::statusColor(QStringLiteral("Stopping")), tr("waiting for capacity")},
         {models::statusColor(QStringLiteral("Failed")), tr("interruption")}});
    m_cost = new CurveChart(this);
    m_cost->setObjectName(QStringLiteral("billingCostChart"));
    m_cost->setTitle(tr("Cumulative cost (USD)"));
    m_cost->setXAxisMode(models::XAxisMode::WallTime);
    m_cost->setSmoothing(0);
    m_cost->setMinimumHeight(240);
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(4, 8, 4, 4);
    v->addWidget(m_headline);
    v->addLayout(m_cards);
    auto* stripTitle = new QLabel(tr("Running and waiting for capacity"), this);
    QFont sf = stripTitle->font();
    sf.setBold(true);
    stripTitle->setFont(sf);
    v->addWidget(stripTitle);
    v->addWidget(m_strip);
    v->addWidget(m_cost, 1);
    reload();
}

void JobBillingView::reload() {
    m_service->jobBilling(
        m_task, m_job, [this](models::JobBillingData d) { present(std::move(d)); },
        [this](const QString& error) {
            m_headline->setText(error);
            m_loaded = true;
            Q_EMIT dataLoaded();
        });
}

QString JobBillingView::headline() const {
    return m_headline->text();
}

void JobBillingView::present(models::JobBillingData data) {
    m_data = std::move(data);
    const auto& s = m_data.summary;
    if (!m_data.prices) {
        m_headline->setText(tr("No prices for instance type %1: add it to the catalog, or give "
                               "local_prices in the spec, to see costs.")
                                .arg(m_data.instanceType));
    } else if (m_data.spot) {
        const double saved = s.onDemandCostUsd.value_or(0) - s.spotCostUsd.value_or(0);
        m_headline->setText(tr("<b>Managed spot training saved %1%</b> — %2 instead of %3 on "
                               "demand (%4 saved) on %5 × %6.")
                                .arg(s.savingsPercent, 0, 'f', 1)
                                .arg(money(s.spotCostUsd), money(s.onDemandCostUsd), money(saved),
                                     QString::number(m_data.instanceCount), m_data.instanceType));
    } else {
        const double onSpot =
            s.trainingTimeSeconds / 3600.0 * m_data.prices->spotPerHour * m_data.instanceCount;
        m_headline->setText(
            tr("<b>On-demand job</b>: %1 for %2 of training on %3 × %4; on spot "
               "it would have cost %5.")
                .arg(money(s.onDemandCostUsd), models::formatDuration(s.trainingTimeSeconds),
                     QString::number(m_data.instanceCount), m_data.instanceType, money(onSpot)));
    }
    while (QLayoutItem* item = m_cards->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    const QString prices = m_data.prices ? tr("$%1/h on demand, $%2/h spot")
                                               .arg(m_data.prices->onDemandPerHour, 0, 'f', 3)
                                               .arg(m_data.prices->spotPerHour, 0, 'f', 3)
                                         : QString();
    const struct {
        QString title, value, note;
    } cards[] = {
        {tr("Training time"), models::formatDuration(s.trainingTimeSeconds),
         tr("TrainingTimeInSeconds")},
        {tr("Billable time"), models::formatDuration(s.billableTimeSeconds),
         tr("BillableTimeInSeconds")},
        {tr("Savings"), QStringLiteral("%1%").arg(s.savingsPercent, 0, 'f', 1),
         tr("(1 − billable / training) × 100")},
        {tr("Spot cost"), money(s.spotCostUsd), prices},
        {tr("On-demand cost"), money(s.onDemandCostUsd), {}},
        {tr("Interruptions"), QString::number(s.interruptions),
         s.attempts == 1 ? tr("1 attempt") : tr("%1 attempts").arg(s.attempts)},
        {tr("Waiting for capacity"), models::formatDuration(s.waitingTimeSeconds), {}},
        {tr("Lost work"), tr("%1 steps").arg(s.lostSteps), tr("computed again after resumes")},
    };
    int i = 0;
    for (const auto& c : cards) {
        m_cards->addWidget(card(c.title, c.value, c.note, this), i / 4, i % 4);
        ++i;
    }
    m_strip->setItems(stripItems(m_data.segments));
    QList<models::CurveSeries> series;
    if (m_data.prices) {
        models::CurveSeries onDemand{
            tr("On demand"), models::statusColor(QStringLiteral("Failed")), {}};
        models::CurveSeries spotSeries{
            tr("Spot"), models::statusColor(QStringLiteral("Completed")), {}};
        qint64 k = 0;
        for (const auto& p :
             models::cumulativeCost(m_data.segments, m_data.prices->onDemandPerHour,
                                    m_data.prices->spotPerHour, m_data.instanceCount)) {
            onDemand.points.append({k, p.time, p.onDemandUsd});
            spotSeries.points.append({k, p.time, p.spotUsd});
            ++k;
        }
        series = {onDemand, spotSeries};
    }
    m_cost->setSeries(series);
    m_loaded = true;
    Q_EMIT dataLoaded();
}

} // namespace studio::widgets
