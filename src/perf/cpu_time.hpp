#pragma once
// CPU time of the whole process (every thread), seconds, from CLOCK_PROCESS_CPUTIME_ID. At one thread it is robust to
// other jobs on the machine, which wall time is not; at two threads it says nothing about speed-up. A measurement,
// never a unit test.

namespace favorlab {

double process_cpu_seconds();

}  // namespace favorlab
