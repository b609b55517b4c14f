// A strip across the top of a notebook that says something the user should know (a Python
// notebook that does not run here, a file that did not parse, work an autosave kept) with the
// buttons that act on it. Hidden when there is nothing to say.
#pragma once

#include <QFrame>

#include <functional>

class QHBoxLayout;
class QLabel;
class QPushButton;

namespace studio::widgets {

class MessageBar : public QFrame {
    Q_OBJECT
public:
    enum class Kind { Info, Warning, Error };

    explicit MessageBar(QWidget* parent = nullptr);

    // Replaces the message and its buttons, and shows the bar.
    void showMessage(Kind kind, const QString& text);
    QPushButton* addButton(const QString& text, const QString& objectName,
                           std::function<void()> action);
    void dismiss();
    QString text() const;
    Kind kind() const { return m_kind; }

private:
    Kind m_kind = Kind::Info;
    QLabel* m_icon;
    QLabel* m_text;
    QHBoxLayout* m_buttons;
};

} // namespace studio::widgets
