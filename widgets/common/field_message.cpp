#include "widgets/common/field_message.h"

#include "widgets/common/theme.h"

#include <QEvent>
#include <QPainter>
#include <QPainterPath>

namespace studio::widgets {
namespace {

QColor problemColor() {
    return models::statusColor(QStringLiteral("Failed"));
}

// A transparent sibling drawn over the field's frame; it follows the field's geometry.
class FieldOutline : public QWidget {
public:
    explicit FieldOutline(QWidget* field)
        : QWidget(field->parentWidget())
        , m_field(field) {
        setAttribute(Qt::WA_TransparentForMouseEvents);
        setAttribute(Qt::WA_NoSystemBackground);
        setFocusPolicy(Qt::NoFocus);
        field->installEventFilter(this);
        follow();
    }

protected:
    bool eventFilter(QObject* watched, QEvent* event) override {
        if (watched == m_field) {
            switch (event->type()) {
            case QEvent::Move:
            case QEvent::Resize:
            case QEvent::Show:
            case QEvent::Hide:
            case QEvent::ParentChange:
                follow();
                break;
            default:
                break;
            }
        }
        return false;
    }

    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        QPen pen(problemColor(), 1.6);
        p.setPen(pen);
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(rect()).adjusted(0.8, 0.8, -0.8, -0.8), 2.5, 2.5);
    }

private:
    void follow() {
        if (!m_field)
            return;
        if (parentWidget() != m_field->parentWidget())
            setParent(m_field->parentWidget());
        setGeometry(m_field->geometry());
        setVisible(m_field->isVisibleTo(parentWidget()));
        raise();
    }

    QPointer<QWidget> m_field;
};

} // namespace

FieldMessage::FieldMessage(QWidget* field, QWidget* parent)
    : QLabel(parent)
    , m_field(field) {
    setObjectName(field->objectName() + QStringLiteral("Message"));
    setWordWrap(true);
    setTextFormat(Qt::PlainText);
    setTextInteractionFlags(Qt::TextSelectableByMouse);
    QPalette pal = palette();
    pal.setColor(QPalette::WindowText, problemColor());
    setPalette(pal);
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * 0.92);
    setFont(f);
    hide();
}

FieldMessage::~FieldMessage() {
    delete m_outline.data();
}

void FieldMessage::setProblems(const QStringList& problems) {
    if (problems == m_problems)
        return;
    m_problems = problems;
    setText(problems.join(QLatin1Char('\n')));
    setVisible(!problems.isEmpty());
    if (!m_field)
        return;
    if (problems.isEmpty()) {
        delete m_outline.data();
    } else if (!m_outline && m_field->parentWidget()) {
        m_outline = new FieldOutline(m_field);
    }
}

QLineEdit* formLineEdit(const QString& objectName, const QString& placeholder) {
    auto* e = new QLineEdit;
    e->setObjectName(objectName);
    e->setPlaceholderText(placeholder);
    e->setClearButtonEnabled(true);
    return e;
}

} // namespace studio::widgets
