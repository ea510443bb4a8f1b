# Fails unless README.md contains examples/quickstart.cpp verbatim as a ```cpp block.
file(READ "${README}" readme)
file(READ "${EXAMPLE}" example)
string(FIND "${readme}" "```cpp\n${example}```" position)
if(position EQUAL -1)
  message(FATAL_ERROR "README.md's example differs from examples/quickstart.cpp")
endif()
