// ggp-base's SampleMonteCarloGamer served over HTTP on 127.0.0.1:PORT.
//
//   java GgpBasePlayer PORT
//
// Not ggp-base's PlayerRunner (its class scan finds no gamer on Java 17) nor its GamePlayer
// (which listens on every interface): each request is read, answered by ggp-base's
// RequestFactory for the gamer and written back with ggp-base's HTTP helpers, one at a time.

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

import org.ggp.base.player.gamer.Gamer;
import org.ggp.base.player.gamer.statemachine.sample.SampleMonteCarloGamer;
import org.ggp.base.player.request.factory.RequestFactory;
import org.ggp.base.util.http.HttpReader;
import org.ggp.base.util.http.HttpWriter;

public final class GgpBasePlayer {
    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: GgpBasePlayer PORT");
            System.exit(2);
        }
        Gamer gamer = new SampleMonteCarloGamer();
        try (ServerSocket listener = new ServerSocket(Integer.parseInt(args[0]), 50, InetAddress.getLoopbackAddress())) {
            System.out.println("SampleMonteCarloGamer on http://127.0.0.1:" + listener.getLocalPort() + "/");
            System.out.flush();
            while (true) {
                try (Socket connection = listener.accept()) {
                    String request = HttpReader.readAsServer(connection);
                    HttpWriter.writeAsServer(connection, new RequestFactory().create(gamer, request)
                                                                             .process(System.currentTimeMillis()));
                } catch (Exception e) {  // a bad request must not stop the player
                    System.err.println("request dropped: " + e);
                }
            }
        }
    }
}
