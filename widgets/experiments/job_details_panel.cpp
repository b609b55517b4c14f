#include "widgets/experiments/job_details_panel.h"

#include "models/experiments/leaderboard_format.h"
#include "widgets/common/theme.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace studio::widgets {

namespace {

QLabel* heading(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text.toUpper(), parent);
    QFont f = l->font();
    f.setPointSizeF(f.pointSizeF() * 0.85);
    f.setBold(true);
    f.setLetterSpacing(QFont::PercentageSpacing, 105);
    l->setFont(f);
    l->setForegroundRole(QPalette::PlaceholderText);
    return l;
}

} // namespace

JobDetailsPanel::JobDetailsPanel(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("detailsPanel"));
    auto* outer = new QVBoxLayout(this);
    outer->setContentsMargins(10, 8, 10, 8);
    m_pages = new QStackedWidget(this);
    outer->addWidget(m_pages);

    m_placeholder = new QLabel(this);
    m_placeholder->setAlignment(Qt::AlignCenter);
    m_placeholder->setWordWrap(true);
    m_placeholder->setForegroundRole(QPalette::PlaceholderText);
    m_pages->addWidget(m_placeholder);

    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(6);
    addJobSection(page, v);
    addAnnotationSection(page, v);
    m_pages->addWidget(page);

    connect(m_save, &QPushButton::clicked, this, &JobDetailsPanel::save);
    connect(m_revert, &QPushButton::clicked, this, &JobDetailsPanel::revert);
    connect(m_tagsEdit, &QLineEdit::returnPressed, this, &JobDetailsPanel::save);
    connect(m_tagsEdit, &QLineEdit::textChanged, this, [this] {
        m_tagsError->hide();
        updateButtons();
    });
    connect(m_notesEdit, &QPlainTextEdit::textChanged, this, &JobDetailsPanel::updateButtons);

    setEditable(false);
    showJob(nullptr, 0);
}

// The job: name, status, where it ran, Open and Clone.
void JobDetailsPanel::addJobSection(QWidget* page, QVBoxLayout* v) {
    v->addWidget(heading(QStringLiteral("Job"), page));
    m_title = new QLabel(page);
    m_title->setObjectName(QStringLiteral("detailsTitle"));
    m_title->setWordWrap(true);
    m_title->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QFont tf = m_title->font();
    tf.setBold(true);
    tf.setPointSizeF(tf.pointSizeF() * 1.1);
    m_title->setFont(tf);
    v->addWidget(m_title);
    m_status = new QLabel(page);
    m_status->setTextFormat(Qt::RichText);
    v->addWidget(m_status);
    m_where = new QLabel(page);
    m_where->setWordWrap(true);
    m_where->setForegroundRole(QPalette::PlaceholderText);
    v->addWidget(m_where);

    auto* actions = new QHBoxLayout;
    auto* open = new QPushButton(QStringLiteral("Open"), page);
    open->setToolTip(QStringLiteral("Open the job's details, logs and charts"));
    auto* clone = new QPushButton(QStringLiteral("Clone and edit"), page);
    clone->setToolTip(QStringLiteral("Launch a new job from this one's specification"));
    actions->addWidget(open);
    actions->addWidget(clone);
    actions->addStretch();
    v->addLayout(actions);
    connect(open, &QPushButton::clicked, this, [this] { Q_EMIT openRequested(m_name); });
    connect(clone, &QPushButton::clicked, this, [this] { Q_EMIT cloneRequested(m_name); });
}

// Tags and notes with Save and Revert (or "Read-only").
void JobDetailsPanel::addAnnotationSection(QWidget* page, QVBoxLayout* v) {
    v->addSpacing(8);
    v->addWidget(heading(QStringLiteral("Tags"), page));
    m_tagsEdit = new QLineEdit(page);
    m_tagsEdit->setObjectName(QStringLiteral("tagsEdit"));
    m_tagsEdit->setPlaceholderText(QStringLiteral("key=value, key2=value2"));
    m_tagsEdit->setClearButtonEnabled(true);
    v->addWidget(m_tagsEdit);
    m_tagsError = new QLabel(page);
    m_tagsError->setObjectName(QStringLiteral("tagsError"));
    m_tagsError->setWordWrap(true);
    m_tagsError->setStyleSheet(QStringLiteral("color: #d73a49;"));
    m_tagsError->hide();
    v->addWidget(m_tagsError);

    v->addSpacing(4);
    v->addWidget(heading(QStringLiteral("Notes"), page));
    m_notesEdit = new QPlainTextEdit(page);
    m_notesEdit->setObjectName(QStringLiteral("notesEdit"));
    m_notesEdit->setPlaceholderText(QStringLiteral("What this run tried, what it showed…"));
    v->addWidget(m_notesEdit, 1);

    auto* buttons = new QHBoxLayout;
    m_readOnly = new QLabel(QStringLiteral("Read-only"), page);
    m_readOnly->setForegroundRole(QPalette::PlaceholderText);
    m_readOnly->setToolTip(QStringLiteral("This view has no store writer: edits are off"));
    buttons->addWidget(m_readOnly);
    buttons->addStretch();
    m_revert = new QPushButton(QStringLiteral("Revert"), page);
    m_save = new QPushButton(QStringLiteral("Save"), page);
    m_save->setObjectName(QStringLiteral("saveDetailsButton"));
    m_save->setDefault(true);
    buttons->addWidget(m_revert);
    buttons->addWidget(m_save);
    v->addLayout(buttons);
}

void JobDetailsPanel::setEditable(bool editable) {
    m_editable = editable;
    m_tagsEdit->setReadOnly(!editable);
    m_notesEdit->setReadOnly(!editable);
    m_readOnly->setVisible(!editable);
    m_save->setVisible(editable);
    m_revert->setVisible(editable);
    updateButtons();
}

void JobDetailsPanel::showJob(const models::LeaderboardRow* row, int selected) {
    if (!row || selected != 1) {
        m_id = 0;
        m_name.clear();
        m_placeholder->setText(selected > 1
                                   ? QStringLiteral("%1 jobs selected.\n\nCompare them side by "
                                                    "side with Compare.")
                                         .arg(selected)
                                   : QStringLiteral("Select a job to see its tags and notes."));
        m_pages->setCurrentIndex(0);
        return;
    }
    m_pages->setCurrentIndex(1);
    if (row->id == m_id && row->tags == m_tags && row->notes == m_notes)
        return; // the same job again (a refresh): keep edits in progress
    m_id = row->id;
    m_name = row->name;
    m_tags = row->tags;
    m_notes = row->notes;
    m_title->setText(row->name);
    const QString color = models::statusColor(row->status).name();
    QString status = QStringLiteral("<span style=\"color:%1\">●</span> %2")
                         .arg(color, row->status.toHtmlEscaped());
    if (!row->secondaryStatus.isEmpty() && row->secondaryStatus != row->status)
        status += QStringLiteral(" <span style=\"color:#8c959f\">· %1</span>")
                      .arg(row->secondaryStatus.toHtmlEscaped());
    m_status->setText(status);
    QString where = row->experiment + QStringLiteral(" › ") + row->trial;
    if (!row->failureReason.isEmpty())
        where += QLatin1Char('\n') + row->failureReason;
    m_where->setText(where);
    revert();
}

void JobDetailsPanel::revert() {
    m_tagsEdit->setText(models::formatTagList(m_tags));
    m_notesEdit->setPlainText(m_notes);
    m_tagsError->hide();
    updateButtons();
}

void JobDetailsPanel::save() {
    if (!m_editable || m_id == 0)
        return;
    const models::TagListParse parsed = models::parseTagList(m_tagsEdit->text());
    if (!parsed.error.isEmpty()) {
        m_tagsError->setText(parsed.error);
        m_tagsError->show();
        return;
    }
    const QString notes = m_notesEdit->toPlainText();
    if (parsed.tags == m_tags && notes == m_notes)
        return;
    m_tags = parsed.tags;
    m_notes = notes;
    m_tagsEdit->setText(models::formatTagList(m_tags));
    updateButtons();
    Q_EMIT saveRequested(m_id, m_tags, m_notes);
}

void JobDetailsPanel::updateButtons() {
    const bool dirty = m_tagsEdit->text() != models::formatTagList(m_tags) ||
                       m_notesEdit->toPlainText() != m_notes;
    m_save->setEnabled(m_editable && dirty);
    m_revert->setEnabled(m_editable && dirty);
}

} // namespace studio::widgets
