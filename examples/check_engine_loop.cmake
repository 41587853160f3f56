# Runs examples/engine_loop and checks what it prints (see examples/CMakeLists.txt).
#   -DPROGRAM=path -DARGS="a;b" -DMIN_PSNR=dB   one run: exit 0 and PSNR at least MIN_PSNR
#   -DPROGRAM=path -DCOMPARE=ON                 the right conventions beat each wrong one by 1 dB, and
#                                               FSR's jitter convention scores as swinup's
# Every run also checks that the library's jitter sign warning comes with --wrong-jitter-sign only.
# PSNRs are compared in hundredths of a dB (the program prints two decimals; CMake's math() has
# integers only).
function(run_loop out_centi_db)
  execute_process(COMMAND ${PROGRAM} ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "engine_loop ${ARGN} exited with ${rc}:\n${out}${err}")
  endif()
  if(NOT out MATCHES "psnr ([0-9]+)\\.([0-9][0-9]) dB")
    message(FATAL_ERROR "engine_loop ${ARGN} printed no PSNR:\n${out}${err}")
  endif()
  message(STATUS "engine_loop ${ARGN}: ${CMAKE_MATCH_1}.${CMAKE_MATCH_2} dB")
  math(EXPR centi "${CMAKE_MATCH_1} * 100 + 1${CMAKE_MATCH_2} - 100")
  set(${out_centi_db} ${centi} PARENT_SCOPE)
  # The library's jitter sign check (src/api/jitter_sign_check.h) speaks through the log callback,
  # which the program prints on stderr: it must blame the jitter when, and only when, its sign is
  # the wrong one.
  string(FIND "${err}" "dispatch.jitter_x, dispatch.jitter_y: over the first" warned)
  list(FIND ARGN --wrong-jitter-sign wrong_jitter)
  if(wrong_jitter EQUAL -1 AND NOT warned EQUAL -1)
    message(FATAL_ERROR "engine_loop ${ARGN}: the jitter's sign is right, but the library warned about it:\n${err}")
  endif()
  if(NOT wrong_jitter EQUAL -1 AND warned EQUAL -1)
    message(FATAL_ERROR "engine_loop ${ARGN}: the jitter's sign is wrong, and the library did not warn:\n${err}")
  endif()
endfunction()

if(COMPARE)
  run_loop(right)
  # An engine with FSR 2's jitter code and jitter_convention = SWINUP_JITTER_FSR_DLSS samples the
  # mirrored points of the same sequence: it scores within 0.5 dB of swinup's own convention.
  run_loop(fsr --fsr-jitter)
  math(EXPR gap "${right} - ${fsr}")
  if(gap GREATER 50 OR gap LESS -50)
    message(FATAL_ERROR "engine_loop --fsr-jitter scores ${fsr} hundredths of a dB, not within 0.5 dB of "
                        "swinup's convention (${right})")
  endif()
  foreach(wrong --wrong-motion-sign --wrong-jitter-sign "--fsr-jitter;--wrong-jitter-sign")
    run_loop(bad ${wrong})
    math(EXPR margin "${right} - ${bad}")
    if(margin LESS 100)
      message(FATAL_ERROR "engine_loop ${wrong} scores within 1 dB of the right conventions "
                          "(${bad} vs ${right} hundredths of a dB): the test no longer tells them apart")
    endif()
  endforeach()
else()
  run_loop(psnr ${ARGS})
  math(EXPR min "${MIN_PSNR} * 100")
  if(psnr LESS min)
    message(FATAL_ERROR "engine_loop ${ARGS}: ${psnr} hundredths of a dB, under ${MIN_PSNR} dB")
  endif()
endif()
