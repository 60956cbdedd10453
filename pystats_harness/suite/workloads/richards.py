"""Richards: an operating-system task scheduler simulation (classes, attributes, method calls).

A compact version of Martin Richards' benchmark.  Every loop builds a fresh scheduler; all object
links are dropped at the end of the loop so that nothing survives it (no reference cycles).
"""

I_IDLE = 0
I_WORK = 1
I_HANDLERA = 2
I_HANDLERB = 3
I_DEVA = 4
I_DEVB = 5

K_DEV = 1000
K_WORK = 1001

BUFSIZE = 4
COUNT = 3000  # idle-task iterations per loop


class Packet:
    __slots__ = ("data", "datum", "ident", "kind", "link")

    def __init__(self, link, ident, kind):
        self.link = link
        self.ident = ident
        self.kind = kind
        self.datum = 0
        self.data = [0] * BUFSIZE

    def append_to(self, lst):
        self.link = None
        if lst is None:
            return self
        p = lst
        nxt = p.link
        while nxt is not None:
            p = nxt
            nxt = p.link
        p.link = self
        return lst


class TaskState:
    def __init__(self):
        self.packet_pending = True
        self.task_waiting = False
        self.task_holding = False

    def packet_pending_state(self):
        self.packet_pending = True
        self.task_waiting = False
        self.task_holding = False
        return self

    def waiting(self):
        self.packet_pending = False
        self.task_waiting = True
        self.task_holding = False
        return self

    def waiting_with_packet(self):
        self.packet_pending = True
        self.task_waiting = True
        self.task_holding = False
        return self

    def packet_pending_state_clear(self):
        self.packet_pending = False
        self.task_waiting = False
        self.task_holding = False

    def is_held_or_suspended(self):
        return self.task_holding or (not self.packet_pending and self.task_waiting)

    def is_waiting_with_packet(self):
        return self.packet_pending and self.task_waiting and not self.task_holding


class Scheduler:
    def __init__(self):
        self.task_tab = [None] * 10
        self.task_list = None
        self.hold_count = 0
        self.qpkt_count = 0

    def find(self, ident):
        t = self.task_tab[ident]
        if t is None:
            raise LookupError("bad task id %d" % ident)
        return t

    def hold_self(self, current):
        self.hold_count += 1
        current.task_holding = True
        return current.link

    def release(self, current, ident):
        t = self.find(ident)
        t.task_holding = False
        if t.priority > current.priority:
            return t
        return current

    def wait(self, current):
        current.task_waiting = True
        return current

    def qpkt(self, current, pkt):
        t = self.find(pkt.ident)
        self.qpkt_count += 1
        pkt.link = None
        pkt.ident = current.ident
        return t.add_packet(pkt, current)

    def schedule(self):
        t = self.task_list
        while t is not None:
            if t.is_held_or_suspended():
                t = t.link
            else:
                t = t.run_task()


class Task(TaskState):
    def __init__(self, sched, ident, priority, wkq, state):
        TaskState.__init__(self)
        self.sched = sched
        self.link = sched.task_list
        self.ident = ident
        self.priority = priority
        self.input = wkq
        self.packet_pending = state.packet_pending
        self.task_waiting = state.task_waiting
        self.task_holding = state.task_holding
        sched.task_list = self
        sched.task_tab[ident] = self

    def add_packet(self, pkt, old):
        if self.input is None:
            self.input = pkt
            self.packet_pending = True
            if self.priority > old.priority:
                return self
        else:
            pkt.append_to(self.input)
        return old

    def run_task(self):
        if self.is_waiting_with_packet():
            msg = self.input
            self.input = msg.link
            if self.input is None:
                self.packet_pending_state_clear()
            else:
                self.packet_pending_state()
        else:
            msg = None
        return self.fn(msg)


class DeviceTask(Task):
    def __init__(self, sched, ident, priority, wkq, state):
        Task.__init__(self, sched, ident, priority, wkq, state)
        self.pending = None

    def fn(self, pkt):
        sched = self.sched
        if pkt is None:
            pkt = self.pending
            if pkt is None:
                return sched.wait(self)
            self.pending = None
            return sched.qpkt(self, pkt)
        self.pending = pkt
        return sched.hold_self(self)


class HandlerTask(Task):
    def __init__(self, sched, ident, priority, wkq, state):
        Task.__init__(self, sched, ident, priority, wkq, state)
        self.work_in = None
        self.device_in = None

    def fn(self, pkt):
        sched = self.sched
        if pkt is not None:
            if pkt.kind == K_WORK:
                self.work_in = pkt.append_to(self.work_in)
            else:
                self.device_in = pkt.append_to(self.device_in)
        work = self.work_in
        if work is None:
            return sched.wait(self)
        count = work.datum
        if count >= BUFSIZE:
            self.work_in = work.link
            return sched.qpkt(self, work)
        dev = self.device_in
        if dev is None:
            return sched.wait(self)
        self.device_in = dev.link
        dev.datum = work.data[count]
        work.datum = count + 1
        return sched.qpkt(self, dev)


class IdleTask(Task):
    def __init__(self, sched, ident, priority, wkq, state):
        Task.__init__(self, sched, ident, priority, wkq, state)
        self.control = 1
        self.count = COUNT

    def fn(self, pkt):
        sched = self.sched
        self.count -= 1
        if self.count == 0:
            return sched.hold_self(self)
        if self.control & 1 == 0:
            self.control //= 2
            return sched.release(self, I_DEVA)
        self.control = self.control // 2 ^ 0xD008
        return sched.release(self, I_DEVB)


class WorkTask(Task):
    def __init__(self, sched, ident, priority, wkq, state):
        Task.__init__(self, sched, ident, priority, wkq, state)
        self.destination = I_HANDLERA
        self.letter = 0

    def fn(self, pkt):
        sched = self.sched
        if pkt is None:
            return sched.wait(self)
        if self.destination == I_HANDLERA:
            dest = I_HANDLERB
        else:
            dest = I_HANDLERA
        self.destination = dest
        pkt.ident = dest
        pkt.datum = 0
        for i in range(BUFSIZE):
            self.letter += 1
            if self.letter > 26:
                self.letter = 1
            pkt.data[i] = self.letter
        return sched.qpkt(self, pkt)


def _running():
    state = TaskState()
    state.packet_pending_state_clear()
    return state


def _waiting():
    return TaskState().waiting()


def _waiting_with_packet():
    return TaskState().waiting_with_packet()


def richards():
    sched = Scheduler()
    IdleTask(sched, I_IDLE, 1, None, _running())
    wkq = Packet(None, 0, K_WORK)
    wkq = Packet(wkq, 0, K_WORK)
    WorkTask(sched, I_WORK, 1000, wkq, _waiting_with_packet())
    wkq = Packet(None, I_DEVA, K_DEV)
    wkq = Packet(wkq, I_DEVA, K_DEV)
    wkq = Packet(wkq, I_DEVA, K_DEV)
    HandlerTask(sched, I_HANDLERA, 2000, wkq, _waiting_with_packet())
    wkq = Packet(None, I_DEVB, K_DEV)
    wkq = Packet(wkq, I_DEVB, K_DEV)
    wkq = Packet(wkq, I_DEVB, K_DEV)
    HandlerTask(sched, I_HANDLERB, 3000, wkq, _waiting_with_packet())
    DeviceTask(sched, I_DEVA, 4000, None, _waiting())
    DeviceTask(sched, I_DEVB, 5000, None, _waiting())
    sched.schedule()
    result = (sched.hold_count, sched.qpkt_count)
    # Tasks point at the scheduler and the scheduler at the tasks: break the cycles so that
    # everything dies by reference counting inside this loop.
    for t in sched.task_tab:
        if t is not None:
            t.sched = None
    sched.task_tab = None
    sched.task_list = None
    return result


def run(loops):
    result = None
    for _ in range(loops):
        result = richards()
    return result
