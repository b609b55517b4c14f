#include "widgets/shell/welcome_page.h"

#include <QAction>
#include <QCommandLinkButton>
#include <QDesktopServices>
#include <QFileInfo>
#include <QGridLayout>
#include <QLabel>
#include <QPushButton>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QLabel* heading(const QString& text, QWidget* parent, double scale = 1.25) {
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setBold(true);
    f.setPointSizeF(f.pointSizeF() * scale);
    l->setFont(f);
    l->setAccessibleName(text);
    return l;
}

QLabel* quiet(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setWordWrap(true);
    l->setForegroundRole(QPalette::PlaceholderText);
    return l;
}

// A link-like flat button (keyboard-focusable, unlike a rich-text link in a label).
QPushButton* linkButton(const QString& text, const QString& tip, QWidget* parent) {
    auto* b = new QPushButton(text, parent);
    b->setFlat(true);
    b->setCursor(Qt::PointingHandCursor);
    b->setToolTip(tip);
    b->setStyleSheet(QStringLiteral("QPushButton { text-align: left; color: palette(link); "
                                    "padding: 2px 4px; }"));
    return b;
}

} // namespace

WelcomePage::WelcomePage(models::ExampleCatalog catalog, const QList<QAction*>& start,
                         QWidget* parent)
    : QScrollArea(parent)
    , m_catalog(std::move(catalog)) {
    setObjectName(QStringLiteral("welcomePage"));
    setAccessibleName(tr("Welcome"));
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    auto* body = new QWidget(this);
    body->setBackgroundRole(QPalette::Base);
    body->setAutoFillBackground(true);
    // Like an IDE's welcome page: the title, then Start, Recent, Clusters and Read in a narrow
    // column at the left and the examples at the right.
    auto* page = new QVBoxLayout(body);
    page->setContentsMargins(36, 24, 36, 24);
    page->setSpacing(4);
    page->addWidget(heading(tr("ML Studio"), body, 1.8));
    page->addWidget(quiet(tr("Train on this machine, on SSH hosts and on Slurm clusters; every "
                             "run is recorded, watched by the Debugger and comparable."),
                          body));
    page->addSpacing(14);
    auto* columns = new QHBoxLayout;
    columns->setSpacing(36);
    page->addLayout(columns, 1);

    auto* leftBox = new QWidget(body);
    leftBox->setMaximumWidth(340);
    auto* left = new QVBoxLayout(leftBox);
    left->setContentsMargins(0, 0, 0, 0);
    left->setSpacing(6);
    left->addWidget(buildStart(start));
    left->addSpacing(12);
    left->addWidget(heading(tr("Recent"), body));
    m_recent = new QVBoxLayout;
    left->addLayout(m_recent);
    left->addSpacing(12);
    left->addWidget(heading(tr("Clusters"), body));
    m_clusters = new QVBoxLayout;
    left->addLayout(m_clusters);
    left->addSpacing(12);
    left->addWidget(heading(tr("Read"), body));
    m_docs = new QVBoxLayout;
    left->addLayout(m_docs);
    left->addStretch(1);
    columns->addWidget(leftBox, 1);

    auto* right = new QVBoxLayout;
    right->addWidget(buildExamples());
    right->addStretch(1);
    columns->addLayout(right, 3);
    setWidget(body);
    setRecent({}, {}, {});
    setClusters({});
}

QWidget* WelcomePage::buildStart(const QList<QAction*>& start) {
    auto* box = new QWidget(this);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(2);
    v->addWidget(heading(tr("Start"), box));
    for (QAction* a : start) {
        auto* b = new QToolButton(box);
        b->setDefaultAction(a);
        b->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
        b->setAutoRaise(true);
        const QString keys = a->shortcut().toString(QKeySequence::NativeText);
        b->setText(QString(a->text()).remove(QLatin1Char('&')).remove(QStringLiteral("…")) +
                   (keys.isEmpty() ? QString() : QStringLiteral("   ") + keys));
        b->setAccessibleName(b->text());
        v->addWidget(b);
    }
    return box;
}

QWidget* WelcomePage::buildExamples() {
    auto* box = new QWidget(this);
    auto* v = new QVBoxLayout(box);
    v->setContentsMargins(0, 0, 0, 0);
    v->addWidget(heading(tr("Run an example"), box));
    v->addWidget(quiet(tr("Each runs here with one click; times are measured on a 2-core "
                          "machine without a GPU. Notebooks open as a copy in your workspace "
                          "and run all their cells."),
                       box));
    for (const QString& p : m_catalog.problems)
        v->addWidget(quiet(p, box));
    auto* grid = new QGridLayout;
    grid->setHorizontalSpacing(12);
    grid->setVerticalSpacing(12);
    int i = 0;
    for (const models::Example& e : m_catalog.examples) {
        grid->addWidget(exampleCard(e), i / 2, i % 2);
        ++i;
    }
    v->addLayout(grid);
    return box;
}

QWidget* WelcomePage::exampleCard(const models::Example& e) {
    auto* card = new QFrame(this);
    card->setFrameShape(QFrame::StyledPanel);
    // A card: a shade off the page's background in both themes.
    card->setAutoFillBackground(true);
    card->setBackgroundRole(QPalette::AlternateBase);
    auto* v = new QVBoxLayout(card);
    v->setContentsMargins(12, 10, 12, 10);
    v->setSpacing(4);
    auto* title = new QLabel(e.title, card);
    QFont f = title->font();
    f.setBold(true);
    title->setFont(f);
    v->addWidget(title);
    v->addWidget(quiet(e.shows, card), 1);
    auto* row = new QHBoxLayout;
    QString when = models::durationText(e.seconds);
    if (!e.cluster.isEmpty())
        when += tr(" · on the cluster “%1”").arg(e.cluster);
    row->addWidget(quiet(when, card), 1);
    const bool notebook = e.kind == models::Example::Kind::Notebook;
    auto* run = new QPushButton(notebook ? tr("Open and run") : tr("Run"), card);
    run->setObjectName(QStringLiteral("example:") + QFileInfo(e.path).fileName());
    run->setAccessibleName(tr("%1: %2").arg(run->text(), e.title));
    run->setToolTip(e.path);
    run->setProperty("path", e.path);
    run->setProperty("cluster", e.cluster);
    row->addWidget(run);
    v->addLayout(row);
    connect(run, &QPushButton::clicked, this, [this, e] { Q_EMIT runExampleRequested(e); });
    return card;
}

void WelcomePage::clear(QVBoxLayout* box) {
    while (QLayoutItem* item = box->takeAt(0)) {
        delete item->widget();
        delete item;
    }
}

void WelcomePage::setRecent(const QStringList& notebooks, const QStringList& specs,
                            const QList<RecentJob>& jobs) {
    clear(m_recent);
    QWidget* body = widget();
    if (notebooks.isEmpty() && specs.isEmpty() && jobs.isEmpty())
        m_recent->addWidget(quiet(tr("Nothing yet: notebooks, specs and jobs you open show "
                                     "here."),
                                  body));
    for (const QString& path : notebooks) {
        auto* b = linkButton(tr("Notebook: %1").arg(QFileInfo(path).fileName()), path, body);
        connect(b, &QPushButton::clicked, this,
                [this, path] { Q_EMIT openNotebookRequested(path); });
        m_recent->addWidget(b);
    }
    for (const QString& path : specs) {
        auto* b = linkButton(tr("Spec: %1").arg(QFileInfo(path).fileName()), path, body);
        connect(b, &QPushButton::clicked, this, [this, path] { Q_EMIT openSpecRequested(path); });
        m_recent->addWidget(b);
    }
    for (const RecentJob& j : jobs) {
        auto* b = linkButton(tr("Job: %1 (%2)").arg(j.name, j.status), j.name, body);
        const QString name = j.name;
        connect(b, &QPushButton::clicked, this, [this, name] { Q_EMIT openJobRequested(name); });
        m_recent->addWidget(b);
    }
}

void WelcomePage::setClusters(const QList<ClusterGlance>& clusters) {
    clear(m_clusters);
    m_knownClusters.clear();
    QWidget* body = widget();
    m_clusters->addWidget(quiet(tr("local: this machine"), body));
    for (const ClusterGlance& c : clusters) {
        m_knownClusters << c.name;
        m_clusters->addWidget(
            quiet(QStringLiteral("%1 (%2): %3").arg(c.name, c.kind, c.detail), body));
    }
    if (clusters.isEmpty())
        m_clusters->addWidget(quiet(tr("Add SSH hosts or a Slurm cluster on the Clusters "
                                       "activity (Ctrl+Shift+K)."),
                                    body));
    // Examples that need a cluster run only where it exists.
    for (QPushButton* b : findChildren<QPushButton*>()) {
        const QString needs = b->property("cluster").toString();
        if (needs.isEmpty())
            continue;
        const bool have = m_knownClusters.contains(needs);
        b->setEnabled(have);
        b->setToolTip(
            have ? b->property("path").toString()
                 : tr("Needs a cluster named “%1”: add it on the Clusters activity").arg(needs));
    }
}

void WelcomePage::setDocuments(const QList<QPair<QString, QString>>& titleAndPath) {
    clear(m_docs);
    for (const auto& [title, path] : titleAndPath) {
        auto* b = linkButton(title, path, widget());
        connect(b, &QPushButton::clicked, this,
                [path] { QDesktopServices::openUrl(QUrl::fromLocalFile(path)); });
        m_docs->addWidget(b);
    }
}

} // namespace studio::widgets
