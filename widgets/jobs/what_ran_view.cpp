#include "widgets/jobs/what_ran_view.h"

#include "models/jobs/what_ran_models.h"
#include "widgets/common/diff_highlighter.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSortFilterProxyModel>
#include <QSplitter>
#include <QTableView>
#include <QUrl>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QTableView* table(QAbstractItemModel* model, QWidget* parent) {
    auto* t = new QTableView(parent);
    t->setModel(model);
    t->verticalHeader()->hide();
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setAlternatingRowColors(true);
    t->setShowGrid(false);
    t->horizontalHeader()->setStretchLastSection(true);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    return t;
}

QLabel* title(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setBold(true);
    l->setFont(f);
    return l;
}

} // namespace

WhatRanView::WhatRanView(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("whatRan"));
    m_none = new QLabel(tr("This job has no record of what ran (jobs from before the studio "
                           "kept one, or imported jobs)."),
                        this);
    m_none->setWordWrap(true);
    m_summaryBox = new QWidget(this);
    m_summary = new QFormLayout(m_summaryBox);
    m_summary->setContentsMargins(0, 0, 0, 0);

    m_packages = new models::PackagesModel(this);
    m_packageFilter = new QSortFilterProxyModel(this);
    m_packageFilter->setSourceModel(m_packages);
    m_packageFilter->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_packageFilter->setFilterKeyColumn(models::PackagesModel::NameColumn);
    m_packageSearch = new QLineEdit(this);
    m_packageSearch->setPlaceholderText(tr("Filter packages"));
    m_packageSearch->setClearButtonEnabled(true);
    connect(m_packageSearch, &QLineEdit::textChanged, m_packageFilter,
            &QSortFilterProxyModel::setFilterFixedString);
    m_packageTable = table(m_packageFilter, this);
    m_packageTable->setObjectName(QStringLiteral("whatRanPackages"));
    m_packageTable->setSortingEnabled(true);
    m_packageTable->sortByColumn(models::PackagesModel::NameColumn, Qt::AscendingOrder);

    m_diffTitle = title(tr("Uncommitted changes"), this);
    m_diff = new QPlainTextEdit(this);
    m_diff->setObjectName(QStringLiteral("whatRanDiff"));
    m_diff->setReadOnly(true);
    m_diff->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_diff->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    new DiffHighlighter(m_diff->document());

    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->setContentsMargins(0, 0, 0, 0);
    leftLayout->addWidget(m_none);
    leftLayout->addWidget(m_summaryBox);
    leftLayout->addWidget(m_diffTitle);
    leftLayout->addWidget(m_diff, 1);
    auto* right = new QWidget(this);
    auto* rightLayout = new QVBoxLayout(right);
    rightLayout->setContentsMargins(0, 0, 0, 0);
    rightLayout->addWidget(title(tr("Packages (first rank)"), right));
    rightLayout->addWidget(m_packageSearch);
    rightLayout->addWidget(m_packageTable, 1);

    auto* top = new QSplitter(Qt::Horizontal, this);
    top->addWidget(left);
    top->addWidget(right);
    top->setStretchFactor(0, 3);
    top->setStretchFactor(1, 2);
    auto* page = new QSplitter(Qt::Vertical, this);
    page->addWidget(top);
    page->addWidget(buildOperators());
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 6, 0, 0);
    layout->addWidget(page);
}

QWidget* WhatRanView::buildOperators() {
    auto* box = new QWidget(this);
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    m_operators = new models::OperatorsModel(this);
    m_operatorTable = table(m_operators, box);
    m_operatorTable->setObjectName(QStringLiteral("whatRanOperators"));
    m_operatorsTitle = title(tr("Top operators"), box);
    m_openTrace = new QPushButton(tr("Open trace"), box);
    m_openTrace->setToolTip(tr("The profiled window's trace, as Chrome's and Perfetto's trace "
                               "viewers read it"));
    connect(m_openTrace, &QPushButton::clicked, this, [this] {
        if (!m_trace.isEmpty())
            QDesktopServices::openUrl(QUrl::fromLocalFile(QFileInfo(m_trace).absolutePath()));
    });
    auto* row = new QHBoxLayout;
    row->addWidget(m_operatorsTitle);
    row->addStretch(1);
    row->addWidget(m_openTrace);
    layout->addLayout(row);
    layout->addWidget(m_operatorTable, 1);
    return box;
}

void WhatRanView::setFacts(const std::vector<store::FactsRow>& facts, const QString& jobDir) {
    const models::WhatRanSummary s = models::WhatRanSummary::fromFacts(facts);
    while (m_summary->rowCount() > 0)
        m_summary->removeRow(0);
    for (const auto& [label, value] : s.lines) {
        auto* v = new QLabel(value, m_summaryBox);
        v->setTextInteractionFlags(Qt::TextSelectableByMouse);
        v->setWordWrap(true);
        m_summary->addRow(label + QLatin1Char(':'), v);
    }
    m_none->setVisible(s.lines.empty());
    m_diff->setPlainText(s.gitDiff);
    m_diff->setVisible(!s.gitDiff.isEmpty());
    m_diffTitle->setVisible(!s.gitDiff.isEmpty());
    m_packages->setFacts(facts);
    m_packageTable->resizeColumnToContents(models::PackagesModel::NameColumn);
    m_operators->setFacts(facts);
    m_operatorTable->resizeColumnsToContents();
    const bool ops = m_operators->rowCount() > 0;
    m_operatorsTitle->setText(ops ? tr("Top operators, %1").arg(m_operators->window())
                                  : tr("Top operators: no profiled window (set "
                                       "profiler_config.framework_profile_params)"));
    m_operatorTable->setVisible(ops);
    m_trace = s.traceFile.isEmpty() || jobDir.isEmpty()
                  ? s.traceFile
                  : (QFileInfo(s.traceFile).isAbsolute()
                         ? s.traceFile
                         : jobDir + QStringLiteral("/debug-output/") + s.traceFile);
    m_openTrace->setVisible(!m_trace.isEmpty());
}

} // namespace studio::widgets
