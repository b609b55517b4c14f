// The launch dialog's frame around the section pages: the side bar with the section list, the
// JSON page and the footer with the validation summary and the buttons.
#include "widgets/launch/launch_dialog.h"

#include "widgets/common/theme.h"
#include "widgets/launch/json_highlighter.h"
#include "widgets/launch/section_delegate.h"
#include "widgets/launch/spec_section.h"
#include "widgets/launch/tuning_section.h"

#include <QApplication>
#include <QClipboard>
#include <QFrame>
#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <algorithm>

namespace studio::widgets {

// The job's title, where it runs, the sections and the run shortcut.
QWidget* LaunchDialog::buildSideBar() {
    auto* side = new QWidget;
    side->setObjectName(QStringLiteral("sideBar"));
    side->setFixedWidth(210);
    side->setAutoFillBackground(true);
    QPalette sidePalette = side->palette();
    const QColor sideColor = palette().color(QPalette::Window).darker(104);
    sidePalette.setColor(QPalette::Window, sideColor);
    sidePalette.setColor(QPalette::Base, sideColor);
    side->setPalette(sidePalette);
    auto* sideLayout = new QVBoxLayout(side);
    sideLayout->setContentsMargins(0, 18, 0, 12);
    sideLayout->setSpacing(2);
    auto* sideTitle = new QLabel(tr("Training job"));
    QFont titleFont = sideTitle->font();
    titleFont.setWeight(QFont::DemiBold);
    titleFont.setPointSizeF(titleFont.pointSizeF() * 1.1);
    sideTitle->setFont(titleFont);
    sideTitle->setContentsMargins(22, 0, 12, 0);
    m_runsOn = new QLabel(tr("Runs on this machine"));
    m_runsOn->setObjectName(QStringLiteral("runsOn"));
    m_runsOn->setForegroundRole(QPalette::PlaceholderText);
    m_runsOn->setContentsMargins(22, 0, 12, 10);
    QFont hintFont = m_runsOn->font();
    hintFont.setPointSizeF(hintFont.pointSizeF() * 0.9);
    m_runsOn->setFont(hintFont);
    m_sectionList = new QListWidget;
    m_sectionList->setObjectName(QStringLiteral("sectionList"));
    m_sectionList->setItemDelegate(new SectionDelegate(m_sectionList));
    m_sectionList->setFrameShape(QFrame::NoFrame);
    m_sectionList->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_sectionList->setMouseTracking(true);
    // On the Tab chain: the arrow keys pick a section without a mouse.
    m_sectionList->setFocusPolicy(Qt::StrongFocus);
    m_sectionList->setAccessibleName(tr("Sections"));
    sideLayout->addWidget(sideTitle);
    sideLayout->addWidget(m_runsOn);
    sideLayout->addWidget(m_sectionList, 1);
    auto* shortcutHint = new QLabel(tr("Ctrl+Return runs"));
    shortcutHint->setForegroundRole(QPalette::PlaceholderText);
    shortcutHint->setFont(hintFont);
    shortcutHint->setContentsMargins(22, 0, 12, 0);
    sideLayout->addWidget(shortcutHint);
    return side;
}

QWidget* LaunchDialog::buildJsonPage() {
    auto* page = new QWidget;
    page->setObjectName(QStringLiteral("jsonPage"));
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(24, 18, 24, 18);
    v->setSpacing(10);
    auto* heading = new QLabel(tr("JSON"));
    QFont hf = heading->font();
    hf.setPointSizeF(hf.pointSizeF() * 1.45);
    hf.setWeight(QFont::DemiBold);
    heading->setFont(hf);
    auto* top = new QHBoxLayout;
    top->addWidget(heading);
    top->addStretch(1);
    auto* copy = new QPushButton(tr("Copy"));
    copy->setObjectName(QStringLiteral("copyJson"));
    copy->setAutoDefault(false);
    connect(copy, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(m_json->toPlainText()); });
    top->addWidget(copy);
    v->addLayout(top);
    auto* hint = new QLabel(tr("The spec exactly as `mlstudio run` and the studio run it. Keys "
                               "the form does not show are kept as they were."));
    hint->setWordWrap(true);
    hint->setForegroundRole(QPalette::PlaceholderText);
    v->addWidget(hint);
    m_json = new QPlainTextEdit;
    m_json->setObjectName(QStringLiteral("jsonView"));
    m_json->setReadOnly(true);
    m_json->setLineWrapMode(QPlainTextEdit::NoWrap);
    QFont mono = SpecSection::codeFont();
    mono.setPointSizeF(std::max(9.0, QApplication::font().pointSizeF() - 0.5));
    m_json->setFont(mono);
    m_json->setTabStopDistance(QFontMetricsF(mono).horizontalAdvance(QLatin1Char(' ')) * 2);
    new JsonHighlighter(m_json->document());
    v->addWidget(m_json, 1);
    return page;
}

QWidget* LaunchDialog::buildFooter() {
    auto* footer = new QWidget;
    auto* h = new QHBoxLayout(footer);
    h->setContentsMargins(18, 12, 18, 12);
    h->setSpacing(10);
    m_summaryIcon = new QLabel;
    m_summaryIcon->setFixedSize(18, 18);
    h->addWidget(m_summaryIcon, 0, Qt::AlignTop);
    auto* texts = new QVBoxLayout;
    texts->setSpacing(2);
    m_summary = new QLabel;
    m_summary->setObjectName(QStringLiteral("problemSummary"));
    m_summary->setTextFormat(Qt::RichText);
    connect(m_summary, &QLabel::linkActivated, this, &LaunchDialog::showFirstProblem);
    m_details = new QLabel;
    m_details->setObjectName(QStringLiteral("problemDetails"));
    m_details->setWordWrap(true);
    m_details->setTextFormat(Qt::PlainText);
    m_details->setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette red = m_details->palette();
    red.setColor(QPalette::WindowText, models::statusColor(QStringLiteral("Failed")));
    m_details->setPalette(red);
    m_details->hide();
    texts->addWidget(m_summary);
    texts->addWidget(m_details);
    h->addLayout(texts, 1);

    m_saveButton = new QPushButton(tr("Save spec…"));
    m_saveButton->setObjectName(QStringLiteral("saveSpecButton"));
    auto* cancel = new QPushButton(tr("Cancel"));
    cancel->setObjectName(QStringLiteral("cancelButton"));
    m_runButton = new QPushButton(tr("Run"));
    m_runButton->setObjectName(QStringLiteral("runButton"));
    m_runButton->setToolTip(tr("Run the job (Ctrl+Return)"));
    m_runButton->setMinimumWidth(96);
    // The primary action: filled with the accent colour, plainly grey while disabled.
    const QColor accent = palette().color(QPalette::Highlight);
    m_runButton->setStyleSheet(
        QStringLiteral("QPushButton#runButton { background-color: %1; color: white; border: 1px "
                       "solid %2; border-radius: 4px; padding: 4px 22px; font-weight: 600; }"
                       "QPushButton#runButton:hover { background-color: %3; }"
                       "QPushButton#runButton:pressed { background-color: %2; }"
                       "QPushButton#runButton:disabled { background-color: %4; color: %5; "
                       "border-color: %6; }")
            .arg(accent.name(), accent.darker(120).name(), accent.lighter(112).name(),
                 palette().color(QPalette::Button).name(),
                 palette().color(QPalette::Disabled, QPalette::ButtonText).name(),
                 palette().color(QPalette::Mid).name()));
    m_tuneButton = new QPushButton(tr("Tune…"));
    m_tuneButton->setObjectName(QStringLiteral("tuneButton"));
    m_tuneButton->setCheckable(true);
    m_tuneButton->setToolTip(tr("Run as a hyperparameter tuning job (the Tuning page)"));
    connect(m_tuneButton, &QPushButton::toggled, this, [this](bool on) {
        m_tuning->setTuning(on);
        if (on)
            showSection(int(m_sections.size()) - 1);
    });
    for (QPushButton* b : {m_tuneButton, m_saveButton, cancel, m_runButton}) {
        b->setAutoDefault(false);
        h->addWidget(b, 0, Qt::AlignTop);
    }
    connect(m_saveButton, &QPushButton::clicked, this, &LaunchDialog::saveSpecAs);
    connect(cancel, &QPushButton::clicked, this, &QDialog::reject);
    connect(m_runButton, &QPushButton::clicked, this, &LaunchDialog::run);
    return footer;
}

} // namespace studio::widgets
