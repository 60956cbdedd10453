// Trimmed excerpt of CPython 3.11.2 + patches/*/3.11.patch Include/internal/pycore_code.h (probe test fixture).
typedef struct _stats {
    OpcodeStats opcode_stats[256];
    CallStats call_stats;
    ObjectStats object_stats;
} PyStats;

/* Backport of GH-93841: stats are counted only while _py_stats is non-NULL;
   sys._stats_on() points it at _py_stats_struct, sys._stats_off() clears it. */
extern PyStats _py_stats_struct;
extern PyStats *_py_stats;
extern void _Py_StatsClear(void);

#define STAT_INC(opname, name) do { if (_py_stats) _py_stats->opcode_stats[opname].specialization.name++; } while (0)
#define STAT_DEC(opname, name) do { if (_py_stats) _py_stats->opcode_stats[opname].specialization.name--; } while (0)
#define OPCODE_EXE_INC(opname) do { if (_py_stats) _py_stats->opcode_stats[opname].execution_count++; } while (0)
#define CALL_STAT_INC(name) do { if (_py_stats) _py_stats->call_stats.name++; } while (0)
#define OBJECT_STAT_INC(name) do { if (_py_stats) _py_stats->object_stats.name++; } while (0)
#define OBJECT_STAT_INC_COND(name, cond) \
    do { if (_py_stats && (cond)) _py_stats->object_stats.name++; } while (0)

/* Returns 1 if the stats were printed, 0 if not. */
extern int _Py_PrintSpecializationStats(int to_file);
