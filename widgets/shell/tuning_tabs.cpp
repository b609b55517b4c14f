#include "widgets/shell/tuning_tabs.h"

#include "engine/control/tuner.h"
#include "engine/tune/tuning_parser.h"
#include "models/data/data_service.h"
#include "models/live/tuning_bridge.h"
#include "models/tuning/tuning_job_list_model.h"
#include "widgets/common/theme.h"
#include "widgets/shell/explorer.h"
#include "widgets/shell/main_window.h"
#include "widgets/tuning/tuning_view.h"

#include <QMessageBox>
#include <QStyle>
#include <QTabWidget>

#include <algorithm>

namespace studio::widgets {

TuningTabs::TuningTabs(MainWindow& window)
    : QObject(&window)
    , m_window(window) {
}

void TuningTabs::setTuner(control::Tuner* tuner) {
    delete m_bridge;
    m_bridge = nullptr;
    m_tuner = tuner;
    if (m_tuner) {
        m_bridge = new models::TuningBridge(*m_tuner, this);
        connect(m_bridge, &models::TuningBridge::progressed, this, &TuningTabs::applyProgress);
    }
    m_window.dataService()->setTuningBridge(m_bridge); // open tabs reload on its progress
    for (int i = 0; i < m_window.tabs()->count(); ++i)
        if (auto* v = qobject_cast<TuningView*>(m_window.tabs()->widget(i)))
            v->setStoppable(runsHere(v->name()));
}

bool TuningTabs::runsHere(const QString& name) const {
    if (!m_tuner)
        return false;
    const auto running = m_tuner->runningTuningJobs();
    return std::find(running.begin(), running.end(), name.toStdString()) != running.end();
}

TuningView* TuningTabs::open(const QString& name) {
    if (name.isEmpty())
        return nullptr;
    const QString key = QStringLiteral("tuning:") + name;
    if (const int at = m_window.tabIndexOf(key); at >= 0) {
        m_window.tabs()->setCurrentIndex(at);
        return qobject_cast<TuningView*>(m_window.tabs()->widget(at));
    }
    auto* view = new TuningView(m_window.dataService(), name, &m_window);
    view->setStoppable(runsHere(name));
    connect(view, &TuningView::stopRequested, this, &TuningTabs::stop);
    connect(view, &TuningView::openJobRequested, &m_window,
            [this](const QString& job) { m_window.openJob(job); });
    connect(view, &TuningView::dataLoaded, this, [this, view] {
        const int at = m_window.tabs()->indexOf(view);
        if (at >= 0)
            m_window.tabs()->setTabIcon(at, models::statusIcon(view->status()));
    });
    m_window.addTab(view, key, name, m_window.style()->standardIcon(QStyle::SP_FileDialogInfoView));
    return view;
}

bool TuningTabs::stop(const QString& name) {
    return m_tuner && m_tuner->stop(name.toStdString());
}

void TuningTabs::submit(const QString& documentJson, const QString& baseDir) {
    if (!m_tuner) {
        Q_EMIT submitFailed(tr("This studio runs no tuner"));
        return;
    }
    control::Tuner* tuner = m_tuner;
    m_submit.run(
        [text = documentJson.toStdString(), base = baseDir.toStdString(),
         tuner](const models::CancelFlag&) {
            tune::TuningParseResult r = tune::parseTuningSpecText(text, base);
            if (!r.ok()) {
                std::string message;
                for (const auto& e : r.errors)
                    message += (message.empty() ? "" : "\n") + e.text();
                throw std::runtime_error(message);
            }
            return QString::fromStdString(tuner->submit(*r.spec).name);
        },
        [this](QString name) {
            m_window.explorer()->tuningJobs()->refresh();
            open(name);
            Q_EMIT submitted(name);
        },
        [this](const QString& error) {
            Q_EMIT submitFailed(error);
            if (!qEnvironmentVariableIsSet("STUDIO_NO_DIALOGS"))
                QMessageBox::warning(&m_window, tr("The tuning job did not start"), error);
        });
}

void TuningTabs::applyProgress(const models::TuningUpdate& u) {
    Q_EMIT progressed(u);
    m_window.explorer()->tuningJobs()->applyProgress(u.name, u.status, u.counters, u.best,
                                                     u.bestJob);
    for (int i = 0; i < m_window.tabs()->count(); ++i)
        if (auto* v = qobject_cast<TuningView*>(m_window.tabs()->widget(i));
            v && v->name() == u.name)
            v->setStoppable(u.status == QLatin1String("InProgress") && runsHere(u.name));
}

} // namespace studio::widgets
