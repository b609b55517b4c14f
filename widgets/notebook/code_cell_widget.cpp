#include "widgets/notebook/code_cell_widget.h"

#include "widgets/notebook/cell_source_edit.h"
#include "widgets/notebook/input_prompt.h"
#include "widgets/notebook/output_area.h"

#include <QFontDatabase>
#include <QGridLayout>
#include <QLabel>

namespace studio::widgets {

CodeCellWidget::CodeCellWidget(const models::NotebookCell& cell, models::DataService* service,
                               QWidget* parent)
    : CellWidget(cell.id, parent)
    , m_raw(cell.type == models::CellType::Raw)
    , m_count(cell.executionCount) {
    setObjectName(QStringLiteral("codeCell"));
    auto* grid = new QGridLayout(this);
    grid->setContentsMargins(10, 4, 8, 4);
    grid->setHorizontalSpacing(6);
    grid->setVerticalSpacing(4);

    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_gutter = new QLabel(this);
    m_gutter->setObjectName(QStringLiteral("cellGutter"));
    m_gutter->setFont(mono);
    m_gutter->setAlignment(Qt::AlignRight | Qt::AlignTop);
    m_gutter->setForegroundRole(QPalette::PlaceholderText);
    m_gutter->setFixedWidth(QFontMetrics(mono).horizontalAdvance(QStringLiteral("In [888]:")) + 4);
    m_gutter->setContentsMargins(0, 5, 0, 0);
    grid->addWidget(m_gutter, 0, 0);

    m_editor = new CellSourceEdit(true, this);
    m_editor->setObjectName(QStringLiteral("cellEditor"));
    m_editor->setPlainText(cell.source);
    grid->addWidget(m_editor, 0, 1);

    m_outputs = new OutputArea(service, this);
    grid->addWidget(m_outputs, 1, 1);
    if (!m_raw)
        m_outputs->setOutputs(cell.outputs);
    grid->setColumnStretch(1, 1);

    connect(m_editor, &QPlainTextEdit::textChanged, this, &CellWidget::sourceChanged);
    connect(m_editor, &CellSourceEdit::runAndAdvance, this, &CellWidget::runAndAdvance);
    connect(m_editor, &CellSourceEdit::runInPlace, this, &CellWidget::runInPlace);
    connect(m_editor, &CellSourceEdit::focused, this, &CellWidget::activated);
    updateGutter();
}

QString CodeCellWidget::source() const {
    return m_editor->toPlainText();
}

void CodeCellWidget::setSource(const QString& source) {
    m_editor->setPlainText(source);
}

void CodeCellWidget::setReadOnly(bool readOnly) {
    m_editor->setReadOnly(readOnly);
}

void CodeCellWidget::focusEditor() {
    m_editor->setFocus(Qt::OtherFocusReason);
}

void CodeCellWidget::setRunning(bool running) {
    m_running = running;
    updateGutter();
}

void CodeCellWidget::setExecutionCount(std::optional<int> count) {
    m_count = count;
    updateGutter();
}

InputPrompt* CodeCellWidget::showInput(const QString& prompt, bool password) {
    closeInput();
    m_input = new InputPrompt(prompt, password, this);
    static_cast<QGridLayout*>(layout())->addWidget(m_input, 2, 1);
    return m_input;
}

void CodeCellWidget::closeInput() {
    if (!m_input)
        return;
    m_input->hide();
    m_input->deleteLater();
    m_input = nullptr;
}

QString CodeCellWidget::gutterText() const {
    return m_gutter->text();
}

void CodeCellWidget::updateGutter() {
    if (m_raw) {
        m_gutter->setText(tr("Raw"));
        return;
    }
    if (m_running)
        m_gutter->setText(QStringLiteral("In [*]:"));
    else if (m_count)
        m_gutter->setText(QStringLiteral("In [%1]:").arg(*m_count));
    else
        m_gutter->setText(QStringLiteral("In [ ]:"));
}

} // namespace studio::widgets
