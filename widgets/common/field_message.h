// The validation message under a form field: red text naming what is wrong, and a red outline
// drawn around the field itself. Hidden while the field has no problems.
#pragma once

#include <QLabel>
#include <QPointer>
#include <QStringList>

namespace studio::widgets {

class FieldMessage : public QLabel {
    Q_OBJECT
public:
    // The message is named after the field: "<field objectName>Message".
    explicit FieldMessage(QWidget* field, QWidget* parent = nullptr);
    ~FieldMessage() override;

    QWidget* field() const { return m_field; }
    // Shows the problems (one a line) and outlines the field; an empty list clears both.
    void setProblems(const QStringList& problems);
    const QStringList& problems() const { return m_problems; }

private:
    QPointer<QWidget> m_field;
    QPointer<QWidget> m_outline;
    QStringList m_problems;
};

} // namespace studio::widgets
