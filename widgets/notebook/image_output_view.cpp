#include "widgets/notebook/image_output_view.h"

#include "models/notebook/output_mime.h"

#include <QBuffer>
#include <QImageReader>
#include <QPainter>
#include <QSvgRenderer>

#include <cmath>

namespace studio::widgets {

ImageOutputView::ImageOutputView(QWidget* parent)
    : QWidget(parent) {
    setObjectName(QStringLiteral("imageOutput"));
    setAccessibleName(tr("Image"));
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

bool ImageOutputView::setRaster(const QByteArray& base64, QSize metadataSize) {
    // Jupyter writes base64 with line breaks now and then; fromBase64 skips them.
    QByteArray bytes = QByteArray::fromBase64(base64);
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::ReadOnly);
    QImageReader header(&buffer); // reads the size, decodes nothing
    const QSize pixels = header.size();
    if (!header.canRead() || pixels.isEmpty())
        return false;
    m_encoded = std::move(bytes);
    m_pixmap = QPixmap();
    m_natural = models::displayedImageSize(pixels, metadataSize);
    fitHeight();
    update();
    return true;
}

const QPixmap& ImageOutputView::pixmap() const {
    if (!m_encoded.isEmpty()) {
        m_pixmap.loadFromData(m_encoded);
        m_encoded.clear();
    }
    return m_pixmap;
}

bool ImageOutputView::setSvg(const QByteArray& svg, QSize metadataSize) {
    auto* renderer = new QSvgRenderer(this);
    if (!renderer->load(svg) || renderer->defaultSize().isEmpty()) {
        delete renderer;
        return false;
    }
    delete m_svg;
    m_svg = renderer;
    m_svg->setAspectRatioMode(Qt::KeepAspectRatio);
    m_natural = models::displayedImageSize(m_svg->defaultSize(), metadataSize);
    fitHeight();
    update();
    return true;
}

void ImageOutputView::setNeededBackground(const QString& tone) {
    m_background = tone == QLatin1String("light")  ? QColor(Qt::white)
                   : tone == QLatin1String("dark") ? QColor(0x11, 0x11, 0x11)
                                                   : QColor();
    update();
}

QSize ImageOutputView::shownSize(int width) const {
    if (m_natural.isEmpty() || width <= 0 || m_natural.width() <= width)
        return m_natural;
    return {width,
            static_cast<int>(std::lround(double(m_natural.height()) * width / m_natural.width()))};
}

void ImageOutputView::fitHeight() {
    const int h = shownSize(width()).height();
    if (h != height() || minimumHeight() != h)
        setFixedHeight(h);
}

void ImageOutputView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitHeight();
}

void ImageOutputView::paintEvent(QPaintEvent*) {
    const QRect target(QPoint(0, 0), shownSize());
    if (target.isEmpty())
        return;
    QPainter p(this);
    if (m_background.isValid())
        p.fillRect(target, m_background);
    p.setRenderHint(QPainter::SmoothPixmapTransform);
    p.setRenderHint(QPainter::Antialiasing);
    if (m_svg)
        m_svg->render(&p, QRectF(target));
    else
        p.drawPixmap(target, pixmap());
}

QString ImageOutputView::describe() const {
    const QSize s = shownSize();
    return (m_svg ? tr("A drawing, %1 by %2 pixels") : tr("An image, %1 by %2 pixels"))
        .arg(s.width())
        .arg(s.height());
}

} // namespace studio::widgets
