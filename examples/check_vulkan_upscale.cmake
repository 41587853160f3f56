# example_vulkan_upscale_<backend>: `swinup render` makes a short sequence, `swinup upscale` and
# vulkan_upscale upscale it on BACKEND, and every out.NNNN.exr of the two must be the same bytes.
# Skipped (the program prints "vulkan_upscale: skipped: <why>") without a suitable device.
# -DPROGRAM=vulkan_upscale -DCLI=swinup -DBACKEND=vulkan|cuda -DWORK=<scratch folder>
set(frames 4)
set(network --variant lite --precision exact)
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})

execute_process(COMMAND ${CLI} render showcase -o ${WORK}/seq --frames ${frames} --render 48x32 --display 96x64 --no-gt
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "swinup render failed (${rc}): ${out}${err}")
endif()

# The sample first: it decides whether this machine has the device (exit 77: skipped).
execute_process(COMMAND ${PROGRAM} ${WORK}/seq -o ${WORK}/app --backend ${BACKEND} ${network}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 77)
  message(STATUS "${err}")  # "vulkan_upscale: skipped: <why>", which the test's SKIP_REGULAR_EXPRESSION reads
  return()
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "vulkan_upscale --backend ${BACKEND} failed (${rc}): ${out}${err}")
endif()
message(STATUS "${out}")

execute_process(COMMAND ${CLI} upscale ${WORK}/seq -o ${WORK}/cli --backend ${BACKEND} ${network}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "swinup upscale --backend ${BACKEND} failed (${rc}): ${out}${err}")
endif()

math(EXPR last "${frames} - 1")
foreach(i RANGE ${last})
  set(name "out.000${i}.exr")  # frames < 10
  foreach(dir app cli)
    if(NOT EXISTS ${WORK}/${dir}/${name})
      message(FATAL_ERROR "${WORK}/${dir}/${name} was not written")
    endif()
  endforeach()
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${WORK}/app/${name} ${WORK}/cli/${name} RESULT_VARIABLE differ)
  if(NOT differ EQUAL 0)
    message(FATAL_ERROR "${name}: vulkan_upscale --backend ${BACKEND} differs from swinup upscale --backend ${BACKEND}")
  endif()
endforeach()
message(STATUS "vulkan_upscale --backend ${BACKEND}: ${frames} frames byte-identical to swinup upscale")
