#include "widgets/notebook/cell_widget.h"

#include <QMouseEvent>
#include <QPainter>

namespace studio::widgets {

CellWidget::CellWidget(QString cellId, QWidget* parent)
    : QFrame(parent)
    , m_cellId(std::move(cellId)) {
    setObjectName(QStringLiteral("notebookCell"));
    // Preferred, not Fixed: wrapped output text needs the height for the width it gets.
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    setFocusPolicy(Qt::ClickFocus);
}

void CellWidget::setSelected(bool selected) {
    if (m_selected == selected)
        return;
    m_selected = selected;
    update();
}

void CellWidget::paintEvent(QPaintEvent* event) {
    QFrame::paintEvent(event);
    if (!m_selected)
        return;
    // Jupyter's mark for the current cell: a bar at the left edge.
    QPainter p(this);
    p.fillRect(QRect(0, 2, 4, height() - 4), palette().color(QPalette::Highlight));
}

void CellWidget::mousePressEvent(QMouseEvent* event) {
    Q_EMIT activated();
    QFrame::mousePressEvent(event);
}

} // namespace studio::widgets
