studio_test(test_job_views LABEL gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_job_views.cpp
    LIBS studio_widgets_jobs)
