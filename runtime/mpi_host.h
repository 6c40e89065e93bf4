/* MPI for the `lucid` executable (not part of the libraries, which stay free of MPI): when
 * the process was started by mpirun (OpenMPI's or a PMI launcher's environment variables),
 * lucid_mpi_attach initialises MPI, silences standard output on ranks other than 0 (so a run
 * prints what the serial run prints) and gives lucid.mpi (scripts/lucid/mpi.lua) its MPI
 * backend; otherwise it does nothing and lucid.mpi stays serial (rank 0 of 1). Built only when
 * CMake finds MPI (LUCID_HAVE_MPI); without it both functions do nothing. docs/mpi.md. */
#ifndef LUCID_MPI_HOST_H
#define LUCID_MPI_HOST_H

#include <lua.h>

/* Call once, after lucid_host_new. Returns 0, or 1 when MPI could not be initialised (a
 * message is printed). */
int lucid_mpi_attach(lua_State *L);

/* Call before exiting with a non-zero code: aborts the whole MPI job (the other ranks may wait
 * in a collective operation forever otherwise). A zero code needs nothing: MPI is finalised at
 * exit. */
void lucid_mpi_fail(int code);

#endif
