studio_test(test_billing_views LABEL gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_billing_views.cpp
    LIBS studio_widgets_billing studio_control)
