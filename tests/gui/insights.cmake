# The Debugger Insights dashboard (widgets/insights/): the heatmap math's unit test, the
# dashboard's GUI test (screenshots in build/screenshots/insights-*.png) and the heatmap bench.
studio_test(test_heatmap_math LABEL unit
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/test_heatmap_math.cpp
    LIBS studio_models)
studio_test(bench_heatmap LABEL bench TIMEOUT 120
    SOURCES ${PROJECT_SOURCE_DIR}/tests/bench/bench_heatmap.cpp
    LIBS studio_widgets_insights)
studio_test(test_insights_gui LABEL gui
    SOURCES ${PROJECT_SOURCE_DIR}/tests/gui/test_insights_gui.cpp
    LIBS studio_widgets_insights studio_store)
studio_test(test_insights_data LABEL unit
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/test_insights_data.cpp
    LIBS studio_models)
