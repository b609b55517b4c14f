#include "widgets/jobs/slurm_job_panel.h"

#include "models/jobs/slurm_jobs_model.h"

#include <QFontDatabase>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QTableView>
#include <QTextDocument>
#include <QVBoxLayout>

#include <algorithm>

namespace studio::widgets {

SlurmJobPanel::SlurmJobPanel(QWidget* parent)
    : QWidget(parent) {
    m_model = new models::SlurmJobsModel(this);
    m_table = new QTableView(this);
    m_table->setObjectName(QStringLiteral("jobSlurmJobs"));
    m_table->setModel(m_model);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_scriptTitle = new QLabel(this);
    m_scriptTitle->setObjectName(QStringLiteral("jobSlurmScriptTitle"));
    m_scriptTitle->setForegroundRole(QPalette::PlaceholderText);
    m_scriptTitle->setContentsMargins(0, 6, 0, 0);
    m_script = new QPlainTextEdit(this);
    m_script->setObjectName(QStringLiteral("jobSlurmScript"));
    m_script->setReadOnly(true);
    m_script->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_script->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));

    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    v->addWidget(m_table);
    v->addWidget(m_scriptTitle);
    v->addWidget(m_script);

    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex& current) { showScript(current.row()); });
}

void SlurmJobPanel::setJobs(const std::vector<store::SlurmJobRow>& jobs) {
    m_model->setJobs(jobs);
    // The script shown stays (the user's pick, or the newest) unless its job is gone; a new
    // submission moves to the newest.
    int row = m_model->rowCount() - 1;
    const QModelIndex current = m_table->currentIndex();
    if (current.isValid() && current.row() < row)
        row = current.row();
    if (row < 0) {
        showScript(-1);
        return;
    }
    if (m_table->currentIndex().row() != row)
        m_table->setCurrentIndex(m_model->index(row, 0));
    showScript(row); // its script may have changed in place
}

void SlurmJobPanel::showScript(int row) {
    if (row < 0 || row >= m_model->rowCount()) {
        m_shownJob = 0;
        m_scriptTitle->clear();
        m_script->clear();
        return;
    }
    const QModelIndex index = m_model->index(row, 0);
    m_shownJob = index.data(models::SlurmJobsModel::JobIdRole).toLongLong();
    m_scriptTitle->setText(tr("Batch script of Slurm job %1, as submitted").arg(m_shownJob));
    const QString script = index.data(models::SlurmJobsModel::ScriptRole).toString();
    if (m_script->toPlainText() != script)
        m_script->setPlainText(script);
    // As tall as the script, up to 24 lines; a longer one scrolls.
    const int lines = std::clamp(static_cast<int>(script.count(QLatin1Char('\n'))) + 1, 4, 24);
    m_script->setFixedHeight(m_script->fontMetrics().lineSpacing() * lines +
                             2 * m_script->frameWidth() +
                             static_cast<int>(2 * m_script->document()->documentMargin()) + 4);
}

} // namespace studio::widgets
