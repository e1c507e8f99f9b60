/* A stand-in for libnccl.so.2 in tests (no GPU here): the calls dcukit binds, with the group
 * id and the joining recorded so that a test sees what each rank was given. ncclGetUniqueId
 * writes a marked id; ncclCommInitRank refuses an id without the mark (a rank that never got
 * rank 0's) and, with DCUKIT_FAKE_NCCL_STALL set, sleeps 30 s as a rank whose peers never
 * come. Each joining is a line "RANK NRANKS ID" in $DCUKIT_FAKE_NCCL_LOG. The collectives are
 * not implemented (they return ncclInternalError). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  char internal[128];
} ncclUniqueId;

typedef struct {
  int rank, nranks;
  char id[128];
} fake_comm;

static const char kMark[] = "dcukit-fake-nccl-id";
static int g_ids;

int ncclGetVersion(int* v) { *v = 22809; return 0; }
const char* ncclGetErrorString(int r) { return r == 4 ? "invalid argument" : "internal error"; }
int ncclGetUniqueId(ncclUniqueId* id) {
  memset(id->internal, 0, sizeof id->internal);
  snprintf(id->internal, sizeof id->internal, "%s-%d-%d", kMark, (int)getpid(), ++g_ids);
  return 0;
}
int ncclCommInitRank(void** comm, int nranks, ncclUniqueId id, int rank) {
  if (strncmp(id.internal, kMark, sizeof kMark - 1) != 0 || rank < 0 || rank >= nranks) return 4;
  if (getenv("DCUKIT_FAKE_NCCL_STALL")) sleep(30);
  const char* log = getenv("DCUKIT_FAKE_NCCL_LOG");
  FILE* f = log ? fopen(log, "a") : NULL;
  if (f) {
    fprintf(f, "%d %d %s\n", rank, nranks, id.internal);
    fclose(f);
  }
  fake_comm* c = calloc(1, sizeof *c);
  c->rank = rank;
  c->nranks = nranks;
  memcpy(c->id, id.internal, sizeof c->id);
  *comm = c;
  return 0;
}
int ncclCommInitAll(void** comms, int n, const int* devs) { (void)comms, (void)n, (void)devs; return 3; }
int ncclCommDestroy(void* comm) { free(comm); return 0; }
int ncclCommAbort(void* comm) { free(comm); return 0; }
int ncclAllReduce(void) { return 3; }
int ncclAllGather(void) { return 3; }
int ncclReduceScatter(void) { return 3; }
int ncclBroadcast(void) { return 3; }
int ncclReduce(void) { return 3; }
int ncclSend(void) { return 3; }
int ncclRecv(void) { return 3; }
int ncclGroupStart(void) { return 0; }
int ncclGroupEnd(void) { return 0; }
