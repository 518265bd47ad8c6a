// tests/hostile/jvm.sh: a thread pool, a long string and a NullPointerException
// (HotSpot's implicit null check: a SIGSEGV its handler turns into the
// exception) in a JVM whose libjvm is traced.  Prints, exits 5.
import java.util.*;
import java.util.concurrent.*;
public class JvmHostile {
    static int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
    public static void main(String[] a) throws Exception {
        ExecutorService ex = Executors.newFixedThreadPool(3);
        List<Future<Integer>> fs = new ArrayList<>();
        for (int i = 0; i < 6; i++) { final int k = 18 + i; fs.add(ex.submit(() -> fib(k))); }
        long s = 0; for (Future<Integer> f : fs) s += f.get();
        ex.shutdown();
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < 20000; i++) sb.append(i % 10);
        try { Object o = null; o.hashCode(); } catch (NullPointerException e) { s += 1; }
        System.out.println("sum " + s + " len " + sb.length());
        System.exit(5);
    }
}
