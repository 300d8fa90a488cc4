% The driver loop of tests/prolog_oracle.py: reads one command term a line from standard input,
% answers one line on standard output. The game's clauses (relations prefixed g_, tabled) are
% loaded beside this file. Answers are written as KIF: atoms as their text, f(a, b) as (f a b).

:- dynamic g_true/1, g_does/2.

oracle_main :-
    repeat,
    read_term(user_input, Command, []),
    (   Command == end_of_file
    ->  halt(0)
    ;   catch(answer_or_fail(Command), Error, reply_error(Error)),
        flush_output(user_output),
        fail
    ).

answer_or_fail(Command) :-
    (   answer(Command) -> true ; format("error failed ~q~n", [Command]) ).

reply_error(Error) :-
    format("error ~q~n", [Error]).

% The state: the true facts given, tables of the previous state dropped.
answer(state(Facts)) :-
    retractall(g_true(_)),
    retractall(g_does(_, _)),
    forall(member(F, Facts), assertz(g_true(F))),
    abolish_all_tables,
    writeln(ok).
answer(init) :-
    findall(F, g_init(F), Fs),
    write_list(Fs).
answer(legal(Role)) :-
    findall(M, g_legal(Role, M), Ms),
    write_list(Ms).
answer(goals(Role)) :-
    findall(V, g_goal(Role, V), Vs),
    write_list(Vs).
answer(terminal) :-
    (   g_terminal -> writeln(true) ; writeln(false) ).
% The facts that hold after the roles play Moves (a list of does(Role, Move)); the state is
% left as it was.
answer(next(Moves)) :-
    forall(member(does(R, M), Moves), assertz(g_does(R, M))),
    abolish_all_tables,
    findall(F, g_next(F), Fs),
    retractall(g_does(_, _)),
    abolish_all_tables,
    write_list(Fs).

write_list(Terms) :-
    sort(Terms, Unique),
    write('('),
    foldl(write_item, Unique, "", _),
    writeln(')').

write_item(Term, Separator, " ") :-
    write(Separator),
    write_kif(Term).

write_kif(Term) :-
    (   var(Term)
    ->  throw(error(instantiation_error, context(answer_not_ground, _)))
    ;   atom(Term)
    ->  write(Term)
    ;   compound_name_arguments(Term, Name, Args),
        format("(~w", [Name]),
        forall(member(A, Args), (write(' '), write_kif(A))),
        write(')')
    ).
