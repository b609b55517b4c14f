// The validation message under a form field: red text naming what is wrong, and a red outline
// drawn around the field itself. Hidden while the field has no problems. Also the line edit
// the forms use for a text field.
#pragma once

#include <QLabel>
#include <QLineEdit>
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

// A text field of a form: named (tests and messages find it by name), with a placeholder and a
// clear button.
QLineEdit* formLineEdit(const QString& objectName, const QString& placeholder);

} // namespace studio::widgets
