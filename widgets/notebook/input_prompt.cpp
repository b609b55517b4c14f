#include "widgets/notebook/input_prompt.h"

#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>

namespace studio::widgets {

InputPrompt::InputPrompt(const QString& prompt, bool password, QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("inputPrompt"));
    auto* row = new QHBoxLayout(this);
    row->setContentsMargins(0, 2, 0, 2);
    const QFont mono = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    m_prompt = new QLabel(prompt, this);
    m_prompt->setFont(mono);
    m_entry = new QLineEdit(this);
    m_entry->setObjectName(QStringLiteral("inputEntry"));
    m_entry->setFont(mono);
    m_entry->setEchoMode(password ? QLineEdit::Password : QLineEdit::Normal);
    m_entry->setAccessibleName(prompt.isEmpty() ? tr("Input for the running cell") : prompt);
    row->addWidget(m_prompt);
    row->addWidget(m_entry, 1);
    connect(m_entry, &QLineEdit::returnPressed, this, [this] {
        m_entry->setReadOnly(true);
        Q_EMIT submitted(m_entry->text());
    });
    setFocusProxy(m_entry);
}

QString InputPrompt::prompt() const {
    return m_prompt->text();
}

} // namespace studio::widgets
