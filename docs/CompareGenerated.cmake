# Fails when a committed generated doc differs from what ODS generates now.
# FILES: generated|committed|generated|committed...
string(REPLACE "|" ";" FILES "${FILES}")
while(FILES)
  list(POP_FRONT FILES generated committed)
  file(READ ${generated} a)
  file(READ ${committed} b)
  if(NOT a STREQUAL b)
    message(FATAL_ERROR "${committed} is stale; run `ninja -C build autoglm-docs`")
  endif()
endwhile()
