// One match refereed by ggp-base's GameServer on a local rule sheet; its record is written as JSON.
//
//   java GgpBaseReferee RULES.kif MATCH_ID START_CLOCK PLAY_CLOCK OUT.json HOST:PORT...
//
// Players are given in role order. OUT.json holds the match's roles, moves, error codes per step
// and role (Match.getErrorHistory: "IL move", "TO", "CE" or ""), state times, goals and clocks.
// It is built from Match's getters, not Match.toJSON: toJSON gives null (and the server's own
// saving fails) once an error code quotes a reply holding a double quote. Exit status 0 when
// the match was completed.

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;

import external.JSON.JSONArray;
import external.JSON.JSONObject;
import org.ggp.base.server.GameServer;
import org.ggp.base.util.game.Game;
import org.ggp.base.util.gdl.grammar.GdlTerm;
import org.ggp.base.util.match.Match;
import org.ggp.base.util.statemachine.Role;

public final class GgpBaseReferee {
    public static void main(String[] args) throws Exception {
        if (args.length < 6) {
            System.err.println("usage: GgpBaseReferee RULES.kif MATCH_ID START_CLOCK PLAY_CLOCK OUT.json HOST:PORT...");
            System.exit(2);
        }
        // Read locally: GameServerRunner would fetch the game from a repository on the web.
        Game game = Game.createEphemeralGame(Game.preprocessRulesheet(Files.readString(Path.of(args[0]))));
        Match match = new Match(args[1], -1, Integer.parseInt(args[2]), Integer.parseInt(args[3]), game, null);
        List<String> hosts = new ArrayList<>();
        List<Integer> ports = new ArrayList<>();
        for (int i = 5; i < args.length; i++) {
            int colon = args[i].lastIndexOf(':');
            if (colon < 0) {
                throw new IllegalArgumentException("a player is HOST:PORT, got " + args[i]);
            }
            hosts.add(args[i].substring(0, colon));
            ports.add(Integer.parseInt(args[i].substring(colon + 1)));
        }
        List<Role> roles = Role.computeRoles(game.getRules());
        if (roles.size() != hosts.size()) {
            throw new IllegalArgumentException(roles.size() + " roles " + roles + " but " + hosts.size() + " players");
        }
        GameServer server = new GameServer(match, hosts, ports);
        server.start();
        server.join();
        JSONObject record = new JSONObject();
        record.put("matchId", match.getMatchId());
        JSONArray names = new JSONArray();
        for (Role role : roles) {
            names.put(role.getName().getValue());
        }
        record.put("roles", names);
        JSONArray moves = new JSONArray();
        for (List<GdlTerm> joint : match.getMoveHistory()) {
            JSONArray row = new JSONArray();
            for (GdlTerm move : joint) {
                row.put(move.toString());
            }
            moves.put(row);
        }
        record.put("moves", moves);
        JSONArray errors = new JSONArray();
        for (List<String> row : match.getErrorHistory()) {
            errors.put(new JSONArray(row));
        }
        record.put("errors", errors);
        JSONArray times = new JSONArray();
        for (Date time : match.getStateTimeHistory()) {
            times.put(time.getTime());
        }
        record.put("stateTimes", times);
        record.put("goalValues", new JSONArray(match.getGoalValues()));
        record.put("isCompleted", match.isCompleted());
        record.put("startClock", match.getStartClock());
        record.put("playClock", match.getPlayClock());
        Files.writeString(Path.of(args[4]), record.toString());
        System.out.println(args[1] + ": completed " + match.isCompleted() + ", goals " + match.getGoalValues());
        System.exit(match.isCompleted() ? 0 : 1);
    }
}
