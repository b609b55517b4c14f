studio_test(test_job_views LABEL gui SOURCES ${CMAKE_CURRENT_SOURCE_DIR}/test_job_views.cpp
    LIBS studio_widgets_jobs)
studio_test(test_job_models LABEL unit
    SOURCES ${PROJECT_SOURCE_DIR}/tests/unit/test_job_models.cpp
    LIBS studio_models)
