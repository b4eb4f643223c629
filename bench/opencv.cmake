# The OpenCV peer for the results page (docs/results.md): cv::filter2D (and
# cv::sepFilter2D for rank-1 filters, with step 8's factors) on the
# same inputs as the sweeps. Optional and benchmark-only: built when CMake
# finds OpenCV's core and imgproc (Debian: libopencv-dev), skipped otherwise.
find_package(OpenCV QUIET COMPONENTS core imgproc)
if(OpenCV_FOUND)
  add_executable(opencv-filter2d ${PROJECT_SOURCE_DIR}/bench/opencv_filter2d.cpp)
  target_include_directories(opencv-filter2d SYSTEM PRIVATE ${OpenCV_INCLUDE_DIRS})
  target_link_libraries(opencv-filter2d PRIVATE clconv_common step8_separable_lib ${OpenCV_LIBS})
  message(STATUS "OpenCV ${OpenCV_VERSION} found: building opencv-filter2d")
else()
  message(STATUS "OpenCV not found (Debian: libopencv-dev): opencv-filter2d skipped")
endif()
