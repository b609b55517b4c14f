// studio-render-icon SVG SIZE PNG: the studio's icon drawn at SIZE x SIZE pixels into a PNG, for
// the hicolor theme's fixed sizes (run at build time; not installed).
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>

#include <cstdio>
#include <cstdlib>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: studio-render-icon SVG SIZE PNG\n");
        return 2;
    }
    // Shapes drawn into an image need no application object and no window system (the icon
    // has no text).
    const int size = std::atoi(argv[2]);
    QSvgRenderer svg(QString::fromLocal8Bit(argv[1]));
    if (!svg.isValid() || size <= 0) {
        std::fprintf(stderr, "studio-render-icon: cannot read %s as SVG, or size %s is bad\n",
                     argv[1], argv[2]);
        return 1;
    }
    QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::transparent);
    QPainter painter(&image);
    painter.setRenderHint(QPainter::Antialiasing);
    svg.render(&painter);
    painter.end();
    if (!image.save(QString::fromLocal8Bit(argv[3]), "PNG")) {
        std::fprintf(stderr, "studio-render-icon: cannot write %s\n", argv[3]);
        return 1;
    }
    return 0;
}
